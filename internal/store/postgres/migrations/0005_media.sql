-- Attachments keep their file record (original path, alternative text and
-- the media_details JSON) in media, and every file they own (original and
-- generated sizes) in media_files. A path is reserved with post_id 0 before
-- its bytes are written, so no two uploads on any node take the same name.
CREATE TABLE media (
	post_id  bigint PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
	file     text   COLLATE "C" NOT NULL,
	alt_text text   COLLATE "C" NOT NULL DEFAULT '',
	details  text   COLLATE "C" NOT NULL DEFAULT '{}'
);

CREATE TABLE media_files (
	path    text   COLLATE "C" PRIMARY KEY,
	post_id bigint NOT NULL DEFAULT 0
);
CREATE INDEX media_files_post ON media_files (post_id);

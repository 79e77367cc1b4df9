-- An upload reservation (a media_files row with post_id 0) remembers when
-- it was made in its own column, so that reservations left behind by a
-- process that died mid-upload can be swept. Until now the time was kept
-- as the negated Unix time in post_id; those rows become owner 0 with that
-- time (UTC wall clock, as every timestamp here). Rows reserved before that
-- (owner 0) and attached rows keep the zero date: such a reservation
-- counts as made long ago.
ALTER TABLE media_files ADD COLUMN reserved_at timestamp NOT NULL DEFAULT '0001-01-01 00:00:00';
UPDATE media_files
	SET reserved_at = to_timestamp(-post_id) AT TIME ZONE 'UTC', post_id = 0
	WHERE post_id < 0;
CREATE INDEX media_files_reserved ON media_files (reserved_at) WHERE post_id = 0;

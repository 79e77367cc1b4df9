-- Comments remember the status they had before they were trashed or marked
-- as spam (untrash and unspam restore it), and get the indexes their
-- collection filters, the flood rule and the duplicate check use.
ALTER TABLE comments ADD COLUMN pre_trash_status text COLLATE "C" NOT NULL DEFAULT '';

CREATE INDEX comments_date ON comments (date, id);
CREATE INDEX comments_author_email ON comments (folio_nocase(author_email), date_gmt);
CREATE INDEX comments_author_ip ON comments (author_ip, date_gmt);
CREATE INDEX comments_author_date ON comments (author_id, date_gmt);
CREATE INDEX comments_type ON comments (type, approved);
CREATE INDEX comments_post_parent ON comments (post_id, parent);

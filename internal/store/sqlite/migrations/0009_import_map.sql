-- `folio import wxr` (issue #10) maps the records of an exported site to
-- the records they became here: per source (the export's base URL), kind
-- (post, comment, term, user) and the id there. Each entry is written in
-- the same transaction as its record, so reruns skip what exists and an
-- interrupted import resumes.
CREATE TABLE import_map (
	source TEXT    NOT NULL,
	kind   TEXT    NOT NULL,
	old_id TEXT    NOT NULL,
	new_id INTEGER NOT NULL,
	PRIMARY KEY (source, kind, old_id)
) WITHOUT ROWID;

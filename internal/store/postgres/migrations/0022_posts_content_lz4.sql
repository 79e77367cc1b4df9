-- Posts' content is compressed with lz4 instead of pglz, PostgreSQL's
-- default: most posts are long enough to be compressed (over about 2 kB),
-- and pglz spent more time compressing them than anything else an insert
-- does but updating the indexes (a seventh of a bulk load's server time);
-- lz4 compresses and decompresses several times faster, for a little
-- less compression. Only values written from now on change; the stored
-- ones stay pglz, and PostgreSQL reads both.
--
-- A server built without lz4 (it comes with the PostgreSQL packages of
-- every major distribution since version 14) keeps pglz.
DO $$
BEGIN
	ALTER TABLE posts ALTER COLUMN content SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
	NULL;
END
$$;

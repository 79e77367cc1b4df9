-- slug_hints keeps, per base and the posts it is unique among (types,
-- comma-joined, '' for any; parent, -1 for any), a suffix below which
-- every suffix base-2 … base-(next-1) was taken when it was written.
-- A new post's free slug is read from there, so that a title used
-- thousands of times costs one query or two after a restart as well as
-- before it, on every node. The triggers forget a base's hint whenever a
-- write can free one of its suffixes (a post deleted, or its slug, type
-- or parent changed, or it became a draft; posts emptied): a hint only
-- ever tells of suffixes still taken. It is bookkeeping: copies leave it
-- out.
CREATE TABLE slug_hints (
	base   text   COLLATE "C" NOT NULL,
	types  text   COLLATE "C" NOT NULL,
	parent bigint NOT NULL,
	next   bigint NOT NULL,
	PRIMARY KEY (base, types, parent)
);

-- The base a slug base-N belongs to: the slug without its digits and the
-- dash before them (another base at worst, whose hint is then forgotten
-- for nothing).
CREATE FUNCTION folio_slug_hints_free() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	DELETE FROM slug_hints WHERE base = left(rtrim(OLD.slug, '0123456789'), -1);
	RETURN NULL;
END
$$;

CREATE FUNCTION folio_slug_hints_clear() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	DELETE FROM slug_hints;
	RETURN NULL;
END
$$;

CREATE TRIGGER posts_slug_hints_update AFTER UPDATE OF slug, type, parent, status ON posts
	FOR EACH ROW
	WHEN (OLD.slug IS DISTINCT FROM NEW.slug OR OLD.type IS DISTINCT FROM NEW.type
		OR OLD.parent IS DISTINCT FROM NEW.parent
		OR (NEW.status IN ('draft', 'pending', 'auto-draft') AND OLD.status NOT IN ('draft', 'pending', 'auto-draft')))
	EXECUTE FUNCTION folio_slug_hints_free();
CREATE TRIGGER posts_slug_hints_delete AFTER DELETE ON posts
	FOR EACH ROW EXECUTE FUNCTION folio_slug_hints_free();
CREATE TRIGGER posts_slug_hints_truncate AFTER TRUNCATE ON posts
	FOR EACH STATEMENT EXECUTE FUNCTION folio_slug_hints_clear();

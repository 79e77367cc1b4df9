-- slug_hints keeps, per base and the posts it is unique among (types,
-- comma-joined, '' for any; parent, -1 for any), a suffix below which
-- every suffix base-2 … base-(next-1) was taken when it was written.
-- A new post's free slug is read from there, so that a title used
-- thousands of times costs one query or two after a restart as well as
-- before it. The triggers forget a base's hint whenever a write can free
-- one of its suffixes (a post deleted, or its slug, type or parent
-- changed, or it became a draft): a hint only ever tells of suffixes
-- still taken. It is bookkeeping: copies leave it out.
CREATE TABLE slug_hints (
	base   TEXT    NOT NULL,
	types  TEXT    NOT NULL,
	parent INTEGER NOT NULL,
	next   INTEGER NOT NULL,
	PRIMARY KEY (base, types, parent)
) WITHOUT ROWID;

-- The base a slug base-N belongs to: the slug without its digits and the
-- dash before them (another base at worst, whose hint is then forgotten
-- for nothing).
CREATE TRIGGER posts_slug_hints_update AFTER UPDATE OF slug, type, parent, status ON posts
	WHEN old.slug <> new.slug OR old.type <> new.type OR old.parent <> new.parent
		OR (new.status IN ('draft', 'pending', 'auto-draft') AND old.status NOT IN ('draft', 'pending', 'auto-draft'))
BEGIN
	DELETE FROM slug_hints
		WHERE base = substr(rtrim(old.slug, '0123456789'), 1, length(rtrim(old.slug, '0123456789')) - 1);
END;
CREATE TRIGGER posts_slug_hints_delete AFTER DELETE ON posts BEGIN
	DELETE FROM slug_hints
		WHERE base = substr(rtrim(old.slug, '0123456789'), 1, length(rtrim(old.slug, '0123456789')) - 1);
END;

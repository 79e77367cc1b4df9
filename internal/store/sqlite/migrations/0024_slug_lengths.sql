-- The next free slug (content.finishSlug). The candidates base, base-2, …
-- base-16 are looked up in the index on (type, slug), and each one taken
-- read its post for its parent and status; the taken suffixes of a base
-- are read a few digits at a time, and a base with thousands of long
-- suffixes (posts imported with their old ids in their slugs, or a bulk
-- load's) walked all of them, and read every post, for each new post of
-- its title. Both indexes now cover those queries (parent and status),
-- and by length the suffixes of each length are a range of their own.
DROP INDEX posts_type_slug;
CREATE INDEX posts_type_slug ON posts (type, slug, parent, status);
CREATE INDEX posts_type_slug_length ON posts (type, length(slug), slug, parent, status);

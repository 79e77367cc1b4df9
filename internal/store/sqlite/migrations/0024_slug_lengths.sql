-- The next free slug suffix (content.finishSlug): the taken suffixes of a
-- base are read a few digits at a time, and a base with thousands of long
-- suffixes (posts imported with their old ids in their slugs, or a bulk
-- load's) walked all of them, and read every post, for each new post of
-- its title. Indexed by length, the suffixes of each length are a range of
-- their own; parent and status make the index cover the query.
CREATE INDEX posts_type_slug_length ON posts (type, length(slug), slug, parent, status);

-- The kept totals of searches in one row (internal/store/sqlite/
-- searchtotals.go). Each batch of writes wrote every kept total that
-- changed, one row each: with lorem-like text every new post changes
-- all of them, and 85 kept searches cost ~0.4 ms of the writer's turn a
-- batch and two more pages of the WAL. The totals are now a JSON array
-- in the row '' (list), which every batch that changes the index writes
-- anyway for the version; each kept search has its place in it (slot).
-- n of the other rows is no longer read.
ALTER TABLE search_totals ADD COLUMN slot INTEGER;
ALTER TABLE search_totals ADD COLUMN list TEXT;

UPDATE search_totals SET slot = (
	SELECT count(*) FROM search_totals s WHERE s.key <> '' AND s.key < search_totals.key
) WHERE key <> '';

-- The version moves: a writer of another process reloads the totals.
UPDATE search_totals SET n = n + 1, list = (
	SELECT coalesce(json_group_array(n ORDER BY slot), '[]') FROM search_totals WHERE key <> ''
) WHERE key = '';

-- The totals of the searches counted lately (docs/search.md, "Totals";
-- internal/store/sqlite/searchtotals.go). A search's total counts its
-- matches in posts_fts, and a word in most posts costs its whole list
-- there; each row keeps one search's total (words and kinds as JSON
-- arrays, the key their sorted lists), and the writer keeps the totals
-- exact in the same transaction as every change to the index.
--
-- The row of key '' holds the index's version in n: it moves with every
-- batch that changes posts_fts or this table, so that a writer of another
-- process knows its copy of the totals is stale, and a reader counting a
-- search knows which version its count is of.
CREATE TABLE search_totals (
	key TEXT PRIMARY KEY,
	words TEXT NOT NULL,
	kinds TEXT NOT NULL,
	n INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO search_totals (key, words, kinds, n) VALUES ('', '[]', '[]', 0);

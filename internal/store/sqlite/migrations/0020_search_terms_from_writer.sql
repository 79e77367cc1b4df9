-- search_terms (migration 0017) is filled by the writer from here on, when
-- it applies posts_fts_queue to the index before a batch commits
-- (internal/store/sqlite/searchindex.go): it splits each queued post's
-- text into words once, for the index and for search_terms together, and
-- inserts only the words it has not seen committed already. The triggers
-- split the text a second time and looked up every word of every post in
-- search_terms, a third of what a create cost.
DROP TRIGGER search_terms_insert;
DROP TRIGGER search_terms_update;

-- The default category every fresh site has (reference §10.1 "Terms on
-- write"): posts created without categories get it, and it cannot be
-- deleted. Its id is 1 on every backend and node.
INSERT INTO terms (id, taxonomy, name, slug, description, parent, count)
VALUES (1, 'category', 'Uncategorized', 'uncategorized', '', 0, 0);
UPDATE id_counters SET last = GREATEST(last, 1) WHERE name = 'terms';

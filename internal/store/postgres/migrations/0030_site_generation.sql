-- site_generation's one row moves on with every change of the site's
-- options (its settings among them) and of its webhooks. A request reads
-- it with the sign-in data (the same query as auth_generation), and a
-- node keeps the settings and the webhooks it read and uses them again
-- while the generation is the same, instead of reading them again for
-- every write; a change made by any node or process moves it on in the
-- changing transaction (once per statement). It is bookkeeping: copies
-- leave it out.
CREATE TABLE site_generation (
	id integer PRIMARY KEY CHECK (id = 1),
	n  bigint  NOT NULL
);
INSERT INTO site_generation (id, n) VALUES (1, 1);

CREATE FUNCTION folio_site_generation_bump() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	UPDATE site_generation SET n = n + 1 WHERE id = 1;
	RETURN NULL;
END
$$;

CREATE TRIGGER options_site_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON options
	FOR EACH STATEMENT EXECUTE FUNCTION folio_site_generation_bump();
CREATE TRIGGER webhooks_site_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON webhooks
	FOR EACH STATEMENT EXECUTE FUNCTION folio_site_generation_bump();

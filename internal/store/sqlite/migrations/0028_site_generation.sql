-- site_generation's one row moves on with every change of the site's
-- options (its settings among them) and of its webhooks. A request reads
-- it with the sign-in data (the same query as auth_generation), and a
-- server keeps the settings and the webhooks it read and uses them again
-- while the generation is the same, instead of reading them again for
-- every write; a change made by any process (another node, the command
-- line) moves it on in the changing transaction. It is bookkeeping:
-- copies leave it out.
CREATE TABLE site_generation (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
);
INSERT INTO site_generation (id, n) VALUES (1, 1);

CREATE TRIGGER options_site_insert AFTER INSERT ON options BEGIN
	UPDATE site_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER options_site_update AFTER UPDATE ON options BEGIN
	UPDATE site_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER options_site_delete AFTER DELETE ON options BEGIN
	UPDATE site_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER webhooks_site_insert AFTER INSERT ON webhooks BEGIN
	UPDATE site_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER webhooks_site_update AFTER UPDATE ON webhooks BEGIN
	UPDATE site_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER webhooks_site_delete AFTER DELETE ON webhooks BEGIN
	UPDATE site_generation SET n = n + 1 WHERE id = 1;
END;

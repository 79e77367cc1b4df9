-- auth_generation's one row moves on with every change of what Basic
-- authentication reads for a request: users, their roles and
-- capabilities, and application passwords (not the record of their last
-- use, which authentication itself writes). A node keeps the users and
-- passwords it read and uses them again while the generation is the
-- same, reading this row and the sign-in counter instead of five tables;
-- a change made by any node or process moves it on in the changing
-- transaction (once per statement). It is bookkeeping: copies leave it
-- out.
CREATE TABLE auth_generation (
	id integer PRIMARY KEY CHECK (id = 1),
	n  bigint  NOT NULL
);
INSERT INTO auth_generation (id, n) VALUES (1, 1);

CREATE FUNCTION folio_auth_generation_bump() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
	RETURN NULL;
END
$$;

CREATE TRIGGER users_auth_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
	FOR EACH STATEMENT EXECUTE FUNCTION folio_auth_generation_bump();
CREATE TRIGGER user_roles_auth_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_roles
	FOR EACH STATEMENT EXECUTE FUNCTION folio_auth_generation_bump();
CREATE TRIGGER user_caps_auth_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_caps
	FOR EACH STATEMENT EXECUTE FUNCTION folio_auth_generation_bump();
CREATE TRIGGER app_passwords_auth_generation
	AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF id, uuid, user_id, name, hash, created ON app_passwords
	FOR EACH STATEMENT EXECUTE FUNCTION folio_auth_generation_bump();

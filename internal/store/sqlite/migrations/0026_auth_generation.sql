-- auth_generation's one row moves on with every change of what Basic
-- authentication reads for a request: users, their roles and
-- capabilities, and application passwords (not the record of their last
-- use, which authentication itself writes). A server keeps the users and
-- passwords it read and uses them again while the generation is the
-- same, reading this row and the sign-in counter instead of five tables;
-- a change made by any process (another node, the command line) moves it
-- on in the changing transaction. It is bookkeeping: copies leave it out.
CREATE TABLE auth_generation (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
);
INSERT INTO auth_generation (id, n) VALUES (1, 1);

CREATE TRIGGER users_auth_insert AFTER INSERT ON users BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER users_auth_update AFTER UPDATE ON users BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER users_auth_delete AFTER DELETE ON users BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER user_roles_auth_insert AFTER INSERT ON user_roles BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER user_roles_auth_update AFTER UPDATE ON user_roles BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER user_roles_auth_delete AFTER DELETE ON user_roles BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER user_caps_auth_insert AFTER INSERT ON user_caps BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER user_caps_auth_update AFTER UPDATE ON user_caps BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER user_caps_auth_delete AFTER DELETE ON user_caps BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER app_passwords_auth_insert AFTER INSERT ON app_passwords BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER app_passwords_auth_update AFTER UPDATE OF id, uuid, user_id, name, hash, created ON app_passwords BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER app_passwords_auth_delete AFTER DELETE ON app_passwords BEGIN
	UPDATE auth_generation SET n = n + 1 WHERE id = 1;
END;

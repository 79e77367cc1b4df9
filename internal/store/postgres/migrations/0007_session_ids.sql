-- Sessions get a public id: random and unrelated to the token, it names a
-- session in the interface (listing and revoking) without giving away the
-- token or its hash.
ALTER TABLE sessions ADD COLUMN id text COLLATE "C" NOT NULL DEFAULT '';
UPDATE sessions SET id = md5(random()::text || clock_timestamp()::text || token_hash);
CREATE UNIQUE INDEX sessions_id ON sessions (id);

-- Sessions get a public id: random and unrelated to the token, it names a
-- session in the interface (listing and revoking) without giving away the
-- token or its hash.
ALTER TABLE sessions ADD COLUMN id TEXT NOT NULL DEFAULT '';
UPDATE sessions SET id = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX sessions_id ON sessions (id);

-- +goose Up
-- The workspace revision: one counter that every agent-visible commit increments.
CREATE TABLE workspace (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    revision   INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0),
    updated_at DATETIME NOT NULL
);
INSERT INTO workspace (id, revision, updated_at) VALUES (1, 0, CURRENT_TIMESTAMP);

-- Agent credentials: only the SHA-256 of the token is kept.
CREATE TABLE agent_credentials (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    scopes       TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    last_used_at DATETIME,
    revoked_at   DATETIME
);
CREATE UNIQUE INDEX agent_credentials_active_name ON agent_credentials (name) WHERE revoked_at IS NULL;

-- The single owner's passphrase (bcrypt).
CREATE TABLE owner (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    password_hash TEXT NOT NULL,
    updated_at    DATETIME NOT NULL
);

-- Server-side owner sessions; the cookie holds a token, the row its SHA-256.
CREATE TABLE owner_sessions (
    token_hash   TEXT PRIMARY KEY,
    created_at   DATETIME NOT NULL,
    last_seen_at DATETIME NOT NULL,
    expires_at   DATETIME NOT NULL
);
CREATE INDEX owner_sessions_expires ON owner_sessions (expires_at);

-- +goose Down
DROP TABLE owner_sessions;
DROP TABLE owner;
DROP TABLE agent_credentials;
DROP TABLE workspace;

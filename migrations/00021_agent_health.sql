-- +goose Up
-- Agent health: what the runner last learned about its agent's
-- login, one row per agent. 'needs_login': the agent's own check (for
-- Codex, `codex login status`) found no login, and the runner holds
-- scheduled work; 'refused': the model provider refused the credential
-- (401/403) on an invocation. Never the credential itself. Run bookkeeping:
-- no revision.
CREATE TABLE agent_health (
    agent         TEXT PRIMARY KEY,
    state         TEXT NOT NULL CHECK (state IN ('ok', 'needs_login', 'refused')),
    detail        TEXT NOT NULL DEFAULT '',
    credential_id TEXT NOT NULL,
    checked_at    DATETIME NOT NULL
);

-- +goose Down
DROP TABLE agent_health;

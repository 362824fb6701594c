-- +goose Up
-- Owner-owned: the inbox of requests the owner makes of the agent. A
-- publication completes a pending one (completedRequests); the owner may
-- cancel a pending one. request_id is the owner's idempotency key.
CREATE TABLE requests (
    request_id          TEXT PRIMARY KEY,
    kind                TEXT NOT NULL CHECK (kind IN ('refresh', 'reply-draft', 'crm-edit', 'note')),
    entity_id           TEXT NOT NULL DEFAULT '',
    source_revision     TEXT NOT NULL DEFAULT '',
    text                TEXT NOT NULL,
    edit_field          TEXT NOT NULL DEFAULT '',
    edit_value          TEXT NOT NULL DEFAULT '',
    payload_hash        TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'cancelled')),
    completed_run_id    TEXT NOT NULL DEFAULT '',
    completed_refs      TEXT NOT NULL DEFAULT '[]',
    revision            INTEGER NOT NULL,
    created_at          DATETIME NOT NULL,
    updated_at          DATETIME NOT NULL
);
CREATE INDEX requests_status ON requests (status, updated_at);

-- +goose Down
DROP TABLE requests;

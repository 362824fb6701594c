-- +goose Up
-- Owner-owned: every confirmed reply send. A send is recorded as pending
-- before Beeper is called, then settled as sent, failed or unknown (the
-- request went out but no answer came; reconciled by reading the chat).
-- send_key makes a confirm idempotent: the same key never sends twice.
CREATE TABLE sends (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT,
    send_key                TEXT NOT NULL UNIQUE,
    draft_id                TEXT NOT NULL REFERENCES reply_drafts (id),
    activity_id             TEXT REFERENCES activities (id),
    account_id              TEXT NOT NULL,
    chat_id                 TEXT NOT NULL,
    reply_to_message_id     TEXT NOT NULL DEFAULT '',
    body                    TEXT NOT NULL,
    source_message_revision TEXT NOT NULL,
    status                  TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'unknown')),
    pending_message_id      TEXT NOT NULL DEFAULT '',
    error                   TEXT NOT NULL DEFAULT '',
    revision                INTEGER NOT NULL,
    created_at              DATETIME NOT NULL,
    updated_at              DATETIME NOT NULL
);
CREATE INDEX sends_draft ON sends (draft_id, created_at);
CREATE INDEX sends_updated ON sends (updated_at);

-- +goose Down
DROP TABLE sends;

-- +goose Up
-- Owner-owned: a reviewed reply confirmed to send later. It records what the
-- chat looked like at the confirmation (the newest incoming message that
-- counts, the owner's newest own message, by ID and sort key) and the draft
-- as confirmed (its revision and the owner's edit revision, 0 for none), so
-- at due_at hearth sends only if none of them moved. send_key is the key of
-- the send it becomes (sends.send_key), which makes it go at most once.
-- state: scheduled → sending (claimed at its time; no longer cancellable) →
-- went (handed to the send path) or held (the chat moved on); or cancelled
-- by the owner before its time.
CREATE TABLE scheduled_sends (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    send_key             TEXT NOT NULL UNIQUE,
    draft_id             TEXT NOT NULL REFERENCES reply_drafts (id),
    chat_id              TEXT NOT NULL,
    body                 TEXT NOT NULL,
    incoming_message_id  TEXT NOT NULL DEFAULT '',
    incoming_sort_key    TEXT NOT NULL DEFAULT '',
    own_message_id       TEXT NOT NULL DEFAULT '',
    own_sort_key         TEXT NOT NULL DEFAULT '',
    draft_revision       INTEGER NOT NULL,
    edit_revision        INTEGER NOT NULL DEFAULT 0,
    due_at               DATETIME NOT NULL,
    state                TEXT NOT NULL CHECK (state IN ('scheduled', 'sending', 'went', 'held', 'cancelled')),
    note                 TEXT NOT NULL DEFAULT '',
    revision             INTEGER NOT NULL,
    created_at           DATETIME NOT NULL,
    updated_at           DATETIME NOT NULL
);
-- The due ones, read on every watch pass.
CREATE INDEX scheduled_sends_due ON scheduled_sends (due_at) WHERE state IN ('scheduled', 'sending');
CREATE INDEX scheduled_sends_draft ON scheduled_sends (draft_id, id);

-- +goose Down
DROP TABLE scheduled_sends;

-- +goose Up
-- The owner's own reply can wait too: scheduled_sends.draft_id becomes
-- optional (NULL: the owner's own words, compared at its time by the chat
-- alone), and each row keeps the chat's title as confirmed, for Home,
-- which does not ask Beeper. SQLite changes a column's NOT NULL only by
-- copying the table.
CREATE TABLE scheduled_sends_new (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    send_key             TEXT NOT NULL UNIQUE,
    draft_id             TEXT REFERENCES reply_drafts (id),
    chat_id              TEXT NOT NULL,
    chat_title           TEXT NOT NULL DEFAULT '',
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
INSERT INTO scheduled_sends_new (id, send_key, draft_id, chat_id, body, incoming_message_id, incoming_sort_key, own_message_id, own_sort_key,
    draft_revision, edit_revision, due_at, state, note, revision, created_at, updated_at)
SELECT id, send_key, draft_id, chat_id, body, incoming_message_id, incoming_sort_key, own_message_id, own_sort_key,
    draft_revision, edit_revision, due_at, state, note, revision, created_at, updated_at FROM scheduled_sends;
DROP TABLE scheduled_sends;
ALTER TABLE scheduled_sends_new RENAME TO scheduled_sends;
-- The due ones, read on every watch pass.
CREATE INDEX scheduled_sends_due ON scheduled_sends (due_at) WHERE state IN ('scheduled', 'sending');
CREATE INDEX scheduled_sends_draft ON scheduled_sends (draft_id, id);
-- A chat's newest ones, for Messages' chat list and the conversation.
CREATE INDEX scheduled_sends_chat ON scheduled_sends (chat_id, id);

-- +goose Down
CREATE TABLE scheduled_sends_old (
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
INSERT INTO scheduled_sends_old (id, send_key, draft_id, chat_id, body, incoming_message_id, incoming_sort_key, own_message_id, own_sort_key,
    draft_revision, edit_revision, due_at, state, note, revision, created_at, updated_at)
SELECT id, send_key, draft_id, chat_id, body, incoming_message_id, incoming_sort_key, own_message_id, own_sort_key,
    draft_revision, edit_revision, due_at, state, note, revision, created_at, updated_at FROM scheduled_sends WHERE draft_id IS NOT NULL;
DROP TABLE scheduled_sends;
ALTER TABLE scheduled_sends_old RENAME TO scheduled_sends;
CREATE INDEX scheduled_sends_due ON scheduled_sends (due_at) WHERE state IN ('scheduled', 'sending');
CREATE INDEX scheduled_sends_draft ON scheduled_sends (draft_id, id);

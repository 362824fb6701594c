-- +goose Up
-- The reply workflow.
--
-- A reply the owner writes has no draft, so sends.draft_id becomes
-- optional: SQLite cannot drop NOT NULL in place, so the table is copied.
-- written_candidate_id names the agent's candidate a draft send used word
-- for word ('' when the owner's words differ), so the agent learns from
-- edits without hearth guessing at them later. Nothing references sends.
CREATE TABLE sends_new (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT,
    send_key                TEXT NOT NULL UNIQUE,
    draft_id                TEXT REFERENCES reply_drafts (id),  -- NULL: the owner's own reply
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
    updated_at              DATETIME NOT NULL,
    written_candidate_id    TEXT NOT NULL DEFAULT ''
);
INSERT INTO sends_new (id, send_key, draft_id, activity_id, account_id, chat_id, reply_to_message_id, body,
                       source_message_revision, status, pending_message_id, error, revision, created_at, updated_at)
    SELECT id, send_key, draft_id, activity_id, account_id, chat_id, reply_to_message_id, body,
           source_message_revision, status, pending_message_id, error, revision, created_at, updated_at FROM sends;
DROP TABLE sends;
ALTER TABLE sends_new RENAME TO sends;
CREATE INDEX sends_draft ON sends (draft_id, created_at);
CREATE INDEX sends_updated ON sends (updated_at);
CREATE INDEX sends_activity ON sends (activity_id);
CREATE INDEX sends_chat ON sends (chat_id, created_at);

-- Owner-owned: what the owner decided about a chat's reply, apart from the
-- agent's suggestions and never written by a publication. A decision about
-- a chat with live drafts has one row per draft (draft_id), else one row
-- without: no-reply-needed, remind-later (until: the date it comes back),
-- handed-off (body: the text given to Beeper Desktop; never a send), and
-- own-reply (send_id: the owner's own message that replaced the draft).
CREATE TABLE reply_actions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id    TEXT NOT NULL,
    account_id TEXT NOT NULL DEFAULT '',
    draft_id   TEXT REFERENCES reply_drafts (id),
    action     TEXT NOT NULL CHECK (action IN ('no-reply-needed', 'remind-later', 'handed-off', 'own-reply')),
    until      TEXT NOT NULL DEFAULT '',
    body       TEXT NOT NULL DEFAULT '',
    send_id    INTEGER REFERENCES sends (id),
    revision   INTEGER NOT NULL,
    created_at DATETIME NOT NULL
);
CREATE INDEX reply_actions_chat ON reply_actions (chat_id, created_at);
CREATE INDEX reply_actions_draft ON reply_actions (draft_id);
CREATE INDEX reply_actions_created ON reply_actions (created_at);

-- What the watch needs to list owed replies without asking Beeper: the
-- chat's title, whether it is muted, and the text of its newest message
-- from someone else.
ALTER TABLE beeper_watch ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE beeper_watch ADD COLUMN muted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE beeper_watch ADD COLUMN last_incoming_text TEXT NOT NULL DEFAULT '';

-- A request names its entity for the agent (a chat's title beside its ID).
ALTER TABLE requests ADD COLUMN entity_name TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE requests DROP COLUMN entity_name;
ALTER TABLE beeper_watch DROP COLUMN last_incoming_text;
ALTER TABLE beeper_watch DROP COLUMN muted;
ALTER TABLE beeper_watch DROP COLUMN title;
DROP TABLE reply_actions;
-- The owner's own replies have no draft to keep them under the old schema.
DELETE FROM sends WHERE draft_id IS NULL;
CREATE TABLE sends_old (
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
INSERT INTO sends_old SELECT id, send_key, draft_id, activity_id, account_id, chat_id, reply_to_message_id, body,
    source_message_revision, status, pending_message_id, error, revision, created_at, updated_at FROM sends;
DROP TABLE sends;
ALTER TABLE sends_old RENAME TO sends;
CREATE INDEX sends_draft ON sends (draft_id, created_at);
CREATE INDEX sends_updated ON sends (updated_at);
CREATE INDEX sends_activity ON sends (activity_id);

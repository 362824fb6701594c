-- +goose Up
-- Each person's rhythm is read from when messages were said in their chats
-- and by whom, never their words: one row per message that counts (no
-- reaction, notice, hidden or deleted message), kept for a year.
CREATE TABLE chat_beats (
    chat_id    TEXT NOT NULL,
    message_id TEXT NOT NULL,
    at         INTEGER NOT NULL, -- Unix seconds: a year of a busy chat is read in one scan
    from_owner INTEGER NOT NULL,
    PRIMARY KEY (chat_id, message_id)
) WITHOUT ROWID;
CREATE INDEX chat_beats_at ON chat_beats (at);

-- A chat's earlier messages are read once, the first time the watch
-- reads the chat after this: history_read says it was done.
ALTER TABLE beeper_watch ADD COLUMN history_read INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE beeper_watch DROP COLUMN history_read;
DROP TABLE chat_beats;

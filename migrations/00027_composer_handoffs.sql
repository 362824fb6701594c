-- +goose Up
-- Text hearth put into a chat's Beeper composer (PATCH /v1/chats/{chatID}
-- draft), one row a chat, kept until the chat moves on and hearth has taken
-- its text back out, or found the owner changed it. text is the draft as
-- Beeper reported it after the set; said_sort_key the chat's newest message
-- that counted then (beeper_watch.last_said_sort_key); revision the
-- hand-off's, so a later decline (a newer reply action) is told apart.
CREATE TABLE composer_handoffs (
    chat_id       TEXT PRIMARY KEY,
    text          TEXT NOT NULL,
    said_sort_key TEXT NOT NULL DEFAULT '',
    revision      INTEGER NOT NULL,
    handed_at     DATETIME NOT NULL
);

-- +goose Down
DROP TABLE composer_handoffs;

-- +goose Up
-- A reaction, a bridge notice, a hidden or deleted message is read by the
-- watch (last_sort_key, its cursor) but is not said to the owner: a reply is
-- owed while the newest message that counts is the contact's, whatever
-- reactions or notices came after it. Until now every message counted.
ALTER TABLE beeper_watch ADD COLUMN last_said_sort_key TEXT NOT NULL DEFAULT '';
UPDATE beeper_watch SET last_said_sort_key = last_sort_key;

-- +goose Down
ALTER TABLE beeper_watch DROP COLUMN last_said_sort_key;

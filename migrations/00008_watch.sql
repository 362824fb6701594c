-- +goose Up
-- The Beeper watch: what it last saw in each chat, so it records
-- only new messages as observations and can tell a reply draft is stale.
CREATE TABLE beeper_watch (
    chat_id                TEXT PRIMARY KEY,
    account_id             TEXT NOT NULL,
    last_sort_key          TEXT NOT NULL DEFAULT '',   -- newest message seen
    last_incoming_sort_key TEXT NOT NULL DEFAULT '',   -- newest message from someone else
    last_incoming_at       DATETIME,
    updated_at             DATETIME NOT NULL
);

-- One row: the watch's cursor and health.
CREATE TABLE watch_status (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    since       DATETIME,                              -- newest chat activity already read
    last_ok_at  DATETIME,
    last_error  TEXT NOT NULL DEFAULT '',
    failures    INTEGER NOT NULL DEFAULT 0
);
INSERT INTO watch_status (id) VALUES (1);

-- Jobs new input made dirty, waiting for one coalesced wake-up: a burst
-- adds reasons to the row; the wake is due one debounce window after the
-- first mark, and taking it deletes the row.
CREATE TABLE dirty_jobs (
    job_key   TEXT PRIMARY KEY,
    reasons   TEXT NOT NULL,       -- JSON, the latest few
    marks     INTEGER NOT NULL,
    first_at  DATETIME NOT NULL,
    last_at   DATETIME NOT NULL,
    due_at    DATETIME NOT NULL
);

-- +goose Down
DROP TABLE dirty_jobs;
DROP TABLE watch_status;
DROP TABLE beeper_watch;

-- +goose Up
-- One row per accepted publication, keyed by (publisher, run_id), kept for the life of the database.
CREATE TABLE receipts (
    publisher    TEXT NOT NULL,
    run_id       TEXT NOT NULL,
    job_key      TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    revision     INTEGER NOT NULL,
    received_at  DATETIME NOT NULL,
    PRIMARY KEY (publisher, run_id)
);
CREATE INDEX receipts_revision ON receipts (revision);

CREATE TABLE source_refs (
    id           TEXT PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('life', 'beeper')),
    path         TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL DEFAULT '',
    account_id   TEXT NOT NULL DEFAULT '',
    chat_id      TEXT NOT NULL DEFAULT '',
    message_id   TEXT NOT NULL DEFAULT '',
    target_id    TEXT NOT NULL DEFAULT '',
    observed_at  DATETIME NOT NULL,
    revision     INTEGER NOT NULL
);

-- The current brief (a publication without one leaves it unchanged).
CREATE TABLE briefs (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    date         TEXT NOT NULL,
    time_zone    TEXT NOT NULL,
    text         TEXT NOT NULL,
    evidence_ids TEXT NOT NULL,
    revision     INTEGER NOT NULL,
    updated_at   DATETIME NOT NULL
);

CREATE TABLE people (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    context      TEXT NOT NULL,
    evidence_ids TEXT NOT NULL,
    revision     INTEGER NOT NULL,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);

CREATE TABLE reply_drafts (
    id                      TEXT PRIMARY KEY,
    person_id               TEXT REFERENCES people (id) DEFERRABLE INITIALLY DEFERRED,
    account_id              TEXT NOT NULL,
    chat_id                 TEXT NOT NULL,
    reply_to_message_id     TEXT NOT NULL DEFAULT '',
    source_message_revision TEXT NOT NULL,
    reason                  TEXT NOT NULL,
    candidates              TEXT NOT NULL,
    evidence_ids            TEXT NOT NULL,
    revision                INTEGER NOT NULL,
    retracted_at            DATETIME,
    retract_reason          TEXT NOT NULL DEFAULT '',
    created_at              DATETIME NOT NULL,
    updated_at              DATETIME NOT NULL
);
CREATE INDEX reply_drafts_chat ON reply_drafts (chat_id);
CREATE INDEX reply_drafts_person ON reply_drafts (person_id);
CREATE INDEX reply_drafts_retracted ON reply_drafts (retracted_at);

-- Agent suggestions. closed_at is set when the owner settles an activity
-- (completed, skipped, dismissed) or the agent retracts it; occurrence_date is
-- the day of an occurrence key ('' when undated). Reads select open, current
-- and recently settled rows through activities_window, flat in history.
CREATE TABLE activities (
    id             TEXT PRIMARY KEY,
    kind           TEXT NOT NULL CHECK (kind IN ('task', 'measurement', 'reply', 'routine')),
    title          TEXT NOT NULL,
    detail         TEXT NOT NULL DEFAULT '',
    person_id      TEXT REFERENCES people (id) DEFERRABLE INITIALLY DEFERRED,
    parent_id      TEXT REFERENCES activities (id) DEFERRABLE INITIALLY DEFERRED,
    draft_id       TEXT REFERENCES reply_drafts (id) DEFERRABLE INITIALLY DEFERRED,
    occurrence_key TEXT NOT NULL DEFAULT '',
    section        TEXT NOT NULL DEFAULT '',
    rank           INTEGER NOT NULL DEFAULT 0,
    reason         TEXT NOT NULL DEFAULT '',
    payload        TEXT NOT NULL,
    evidence_ids   TEXT NOT NULL,
    revision       INTEGER NOT NULL,
    retracted_at   DATETIME,
    retract_reason TEXT NOT NULL DEFAULT '',
    closed_at      DATETIME,
    created_at     DATETIME NOT NULL,
    updated_at     DATETIME NOT NULL,
    occurrence_date TEXT GENERATED ALWAYS AS (substr(occurrence_key, 1, 10)) VIRTUAL
);
CREATE INDEX activities_window ON activities (closed_at, occurrence_date);
CREATE INDEX activities_parent ON activities (parent_id);
CREATE INDEX activities_person ON activities (person_id);
CREATE INDEX activities_draft ON activities (draft_id);
CREATE INDEX activities_occurrence ON activities (occurrence_key);

-- Owner-owned: the owner's decision on an activity. Never written by a publication.
CREATE TABLE activity_states (
    activity_id TEXT PRIMARY KEY REFERENCES activities (id),
    state       TEXT NOT NULL CHECK (state IN ('available', 'in_progress', 'waiting', 'deferred', 'completed', 'skipped', 'dismissed')),
    until       TEXT NOT NULL DEFAULT '',
    note        TEXT NOT NULL DEFAULT '',
    revision    INTEGER NOT NULL,
    updated_at  DATETIME NOT NULL
);

-- Owner-owned: the owner's edit of a reply draft. A publication replaces the
-- agent's candidates on reply_drafts but never this row.
CREATE TABLE draft_edits (
    draft_id              TEXT PRIMARY KEY REFERENCES reply_drafts (id),
    body                  TEXT NOT NULL,
    selected_candidate_id TEXT NOT NULL DEFAULT '',
    revision              INTEGER NOT NULL,
    updated_at            DATETIME NOT NULL
);

-- Owner-owned: measurement history. A correction adds a row that supersedes an earlier one.
CREATE TABLE measurements (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    activity_id    TEXT NOT NULL REFERENCES activities (id),
    occurrence_key TEXT NOT NULL DEFAULT '',
    metric         TEXT NOT NULL,
    unit           TEXT NOT NULL,
    value          REAL NOT NULL,
    supersedes_id  INTEGER REFERENCES measurements (id),
    revision       INTEGER NOT NULL,
    recorded_at    DATETIME NOT NULL
);
CREATE INDEX measurements_recorded ON measurements (recorded_at);
CREATE INDEX measurements_metric ON measurements (metric, recorded_at);
CREATE INDEX measurements_activity ON measurements (activity_id, occurrence_key);

-- +goose Down
DROP TABLE measurements;
DROP TABLE draft_edits;
DROP TABLE activity_states;
DROP TABLE activities;
DROP TABLE reply_drafts;
DROP TABLE people;
DROP TABLE briefs;
DROP TABLE source_refs;
DROP TABLE receipts;

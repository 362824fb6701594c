-- +goose Up
-- Schedules (Store B). Definition files under DATA/schedules hold
-- the prompt and the rule; this ledger holds what a file never grants: who
-- created the schedule, who approved which canonical fingerprint (with the
-- canonical snapshot itself, which file data never replaces), its state, the
-- create request's key, hash and receipt, and occurrence bookkeeping.
-- Times are stored in UTC.
CREATE TABLE schedules (
    id                    TEXT PRIMARY KEY,
    job                   TEXT NOT NULL,
    creator_kind          TEXT NOT NULL CHECK (creator_kind IN ('owner', 'operator')),
    creator_id            TEXT NOT NULL,
    creator_name          TEXT NOT NULL,
    approved_by           TEXT NOT NULL,
    approved_at           DATETIME NOT NULL,
    approved_fingerprint  TEXT NOT NULL,
    approved_snapshot     TEXT NOT NULL,
    state                 TEXT NOT NULL CHECK (state IN ('active', 'cancelled', 'expired', 'quarantined', 'restore_pending')),
    state_reason          TEXT NOT NULL DEFAULT '',
    state_detail          TEXT NOT NULL DEFAULT '',
    state_changed_at      DATETIME NOT NULL,
    zone                  TEXT NOT NULL,
    zone_source           TEXT NOT NULL CHECK (zone_source IN ('explicit', 'client', 'utc')),
    request_key           TEXT NOT NULL,
    request_hash          TEXT NOT NULL,
    receipt               TEXT NOT NULL,
    since                 DATETIME NOT NULL,
    next_due_at           DATETIME,
    last_due_at           DATETIME,
    last_finished_at      DATETIME,
    occurrences_admitted  INTEGER NOT NULL DEFAULT 0,
    occurrences_succeeded INTEGER NOT NULL DEFAULT 0,
    occurrences_failed    INTEGER NOT NULL DEFAULT 0,
    occurrences_expired   INTEGER NOT NULL DEFAULT 0,
    cancelled_at          DATETIME,
    cancelled_by          TEXT NOT NULL DEFAULT '',
    revision              INTEGER NOT NULL,
    created_at            DATETIME NOT NULL,
    updated_at            DATETIME NOT NULL
);
-- A create request key is scoped to its creator, like a publication's runId.
CREATE UNIQUE INDEX schedules_request_key ON schedules (creator_id, request_key);
CREATE INDEX schedules_state ON schedules (state, next_due_at);

-- One row per admitted occurrence. 'cancelled' is an admitted occurrence
-- that never started when its schedule was cancelled; 'unknown' one whose
-- attempt never reported (expired while running, or restored from a backup)
-- and that blocks its schedule until the owner has looked at it (resolved_at).
CREATE TABLE schedule_occurrences (
    id           TEXT PRIMARY KEY,
    schedule_id  TEXT NOT NULL REFERENCES schedules (id),
    due_at       DATETIME NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('admitted', 'running', 'succeeded', 'failed', 'expired', 'cancelled', 'unknown')),
    attempts     INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0 AND attempts <= max_attempts),
    max_attempts INTEGER NOT NULL CHECK (max_attempts BETWEEN 1 AND 3),
    deadline_at  DATETIME,
    expires_at   DATETIME NOT NULL,
    claimed_by   TEXT NOT NULL,
    claimed_at   DATETIME NOT NULL,
    started_at   DATETIME,
    finished_at  DATETIME,
    detail       TEXT NOT NULL DEFAULT '',
    resolved_at  DATETIME,
    updated_at   DATETIME NOT NULL,
    UNIQUE (schedule_id, due_at)
);
-- Timing A: at most one outstanding occurrence per schedule, whoever claims.
CREATE UNIQUE INDEX schedule_occurrences_outstanding ON schedule_occurrences (schedule_id)
    WHERE state IN ('admitted', 'running') OR (state = 'unknown' AND resolved_at IS NULL);
CREATE INDEX schedule_occurrences_state ON schedule_occurrences (state, due_at);

-- The journal of file operations: an intent is committed here before a
-- definition file is written (op 'add', payload: the ledger row to insert)
-- or retired (op 'retire'), and removed in the transaction that completes
-- it, so serve completes or rolls back an interrupted add or cancel at start.
CREATE TABLE schedule_journal (
    schedule_id TEXT PRIMARY KEY,
    op          TEXT NOT NULL CHECK (op IN ('add', 'retire')),
    payload     TEXT NOT NULL,
    fingerprint TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL
);

-- Written only into the copy `hearth backup` makes, never into a live
-- database: a server that finds it is running on a restored backup and marks
-- its schedules restore_pending until the owner reconciles them.
CREATE TABLE backup_copy (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    taken_at DATETIME NOT NULL,
    source   TEXT NOT NULL
);

-- +goose Down
DROP TABLE backup_copy;
DROP TABLE schedule_journal;
DROP TABLE schedule_occurrences;
DROP TABLE schedules;

-- +goose Up
-- Routines (docs/routines.md): three
-- levels kept apart. Definitions are the agent's, one row per revision and
-- never overwritten; trials are the owner's decision; occurrences and their
-- outcomes are execution history, of which hearth holds the only copy.

CREATE TABLE routine_definitions (
    routine_id      TEXT NOT NULL,
    revision        INTEGER NOT NULL CHECK (revision >= 1),
    title           TEXT NOT NULL,
    purpose         TEXT NOT NULL,
    trigger_kind    TEXT NOT NULL CHECK (trigger_kind IN ('daily', 'weekly', 'event')),
    trigger_days    TEXT NOT NULL DEFAULT '[]',   -- ISO weekdays 1-7 (JSON)
    trigger_event   TEXT NOT NULL DEFAULT '' CHECK (trigger_event IN ('', 'start-work', 'end-work')),
    time_of_day     TEXT NOT NULL DEFAULT '',
    steps           TEXT NOT NULL,                -- JSON [{id, title, kind, required, payload}]
    completion_rule TEXT NOT NULL,                -- JSON {kind: all-required} | {kind: min-steps, n}
    status          TEXT NOT NULL CHECK (status IN ('ideal', 'candidate', 'retired')),
    evidence_ids    TEXT NOT NULL,
    content_hash    TEXT NOT NULL,                -- of the immutable part, so a changed revision is refused
    published_revision INTEGER NOT NULL,
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL,
    PRIMARY KEY (routine_id, revision)
);

-- Owner-owned: which revision is being tried, on which days, until when.
CREATE TABLE routine_trials (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    routine_id  TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    days        TEXT NOT NULL DEFAULT '[]',       -- ISO weekdays the owner chose (daily/weekly)
    zone        TEXT NOT NULL,
    starts_on   TEXT NOT NULL,                    -- YYYY-MM-DD in zone
    ends_on     TEXT NOT NULL,                    -- last day of the review window
    ended_on    TEXT NOT NULL DEFAULT '',         -- set when the owner ends it early
    state       TEXT NOT NULL CHECK (state IN ('active', 'ended')),
    revision_at INTEGER NOT NULL,
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL,
    FOREIGN KEY (routine_id, revision) REFERENCES routine_definitions (routine_id, revision)
);
CREATE INDEX routine_trials_routine ON routine_trials (routine_id, state);
-- One active trial per routine.
CREATE UNIQUE INDEX routine_trials_one_active ON routine_trials (routine_id) WHERE state = 'active';

-- One occurrence per routine and occasion (a local date, or a trigger for
-- event routines), whatever the revision: delayed or concurrent
-- instantiation never duplicates, and a new revision never reopens one.
CREATE TABLE routine_occurrences (
    id          TEXT PRIMARY KEY,                 -- <routineId>@<occasion>
    routine_id  TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    trial_id    INTEGER NOT NULL REFERENCES routine_trials (id),
    occasion    TEXT NOT NULL,                    -- YYYY-MM-DD, or YYYY-MM-DD.<event>
    local_date  TEXT NOT NULL,
    zone        TEXT NOT NULL,
    rule        TEXT NOT NULL,                    -- frozen completion rule with the required step IDs
    activity_id TEXT NOT NULL REFERENCES activities (id),
    created_at  DATETIME NOT NULL,
    UNIQUE (routine_id, occasion),
    FOREIGN KEY (routine_id, revision) REFERENCES routine_definitions (routine_id, revision)
);
CREATE INDEX routine_occurrences_date ON routine_occurrences (local_date);
CREATE INDEX routine_occurrences_activity ON routine_occurrences (activity_id);

-- Owner-owned, append-only: every outcome recorded for an occurrence; the
-- newest row is current, earlier rows are its history (corrections).
CREATE TABLE routine_outcomes (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    occurrence_id TEXT NOT NULL REFERENCES routine_occurrences (id),
    outcome       TEXT NOT NULL CHECK (outcome IN ('', 'completed', 'partial', 'skipped', 'deferred', 'not-applicable')),
    reason        TEXT NOT NULL DEFAULT '',
    effort        TEXT NOT NULL DEFAULT '' CHECK (effort IN ('', 'easy', 'ok', 'hard')),
    helped        TEXT NOT NULL DEFAULT '' CHECK (helped IN ('', 'yes', 'no', 'unsure')),
    late          INTEGER NOT NULL DEFAULT 0,     -- recorded after its day ("I did it yesterday")
    revision      INTEGER NOT NULL,
    recorded_at   DATETIME NOT NULL
);
CREATE INDEX routine_outcomes_occurrence ON routine_outcomes (occurrence_id, id);

-- Agent reviews of a routine revision over a window, with the counts hearth
-- computed when the review arrived.
CREATE TABLE routine_reviews (
    id           TEXT PRIMARY KEY,
    routine_id   TEXT NOT NULL,
    revision     INTEGER NOT NULL,
    window_from  TEXT NOT NULL,
    window_to    TEXT NOT NULL,
    observations TEXT NOT NULL,
    uncertainties TEXT NOT NULL,
    proposals    TEXT NOT NULL,
    evidence_ids TEXT NOT NULL,
    metrics      TEXT NOT NULL,
    published_revision INTEGER NOT NULL,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);
CREATE INDEX routine_reviews_routine ON routine_reviews (routine_id, window_to);

-- Owner requests gain kind 'routine-change': an adopted, modified or
-- rejected review proposal, for the agent. SQLite cannot alter a CHECK.
CREATE TABLE requests_new (
    request_id          TEXT PRIMARY KEY,
    kind                TEXT NOT NULL CHECK (kind IN ('refresh', 'reply-draft', 'crm-edit', 'note', 'routine-change')),
    entity_id           TEXT NOT NULL DEFAULT '',
    source_revision     TEXT NOT NULL DEFAULT '',
    text                TEXT NOT NULL,
    edit_field          TEXT NOT NULL DEFAULT '',
    edit_value          TEXT NOT NULL DEFAULT '',
    payload_hash        TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'cancelled')),
    completed_run_id    TEXT NOT NULL DEFAULT '',
    completed_refs      TEXT NOT NULL DEFAULT '[]',
    revision            INTEGER NOT NULL,
    created_at          DATETIME NOT NULL,
    updated_at          DATETIME NOT NULL,
    review_id           TEXT NOT NULL DEFAULT '',
    proposal_id         TEXT NOT NULL DEFAULT '',
    decision            TEXT NOT NULL DEFAULT '' CHECK (decision IN ('', 'adopt', 'modify', 'reject'))
);
INSERT INTO requests_new (request_id, kind, entity_id, source_revision, text, edit_field, edit_value, payload_hash, status,
    completed_run_id, completed_refs, revision, created_at, updated_at)
  SELECT request_id, kind, entity_id, source_revision, text, edit_field, edit_value, payload_hash, status,
    completed_run_id, completed_refs, revision, created_at, updated_at FROM requests;
DROP TABLE requests;
ALTER TABLE requests_new RENAME TO requests;
CREATE INDEX requests_status ON requests (status, updated_at);
-- One decision per proposal.
CREATE UNIQUE INDEX requests_proposal ON requests (review_id, proposal_id) WHERE review_id != '';

-- +goose Down
DROP INDEX requests_proposal;
DELETE FROM requests WHERE kind = 'routine-change';
CREATE TABLE requests_old (
    request_id          TEXT PRIMARY KEY,
    kind                TEXT NOT NULL CHECK (kind IN ('refresh', 'reply-draft', 'crm-edit', 'note')),
    entity_id           TEXT NOT NULL DEFAULT '',
    source_revision     TEXT NOT NULL DEFAULT '',
    text                TEXT NOT NULL,
    edit_field          TEXT NOT NULL DEFAULT '',
    edit_value          TEXT NOT NULL DEFAULT '',
    payload_hash        TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'cancelled')),
    completed_run_id    TEXT NOT NULL DEFAULT '',
    completed_refs      TEXT NOT NULL DEFAULT '[]',
    revision            INTEGER NOT NULL,
    created_at          DATETIME NOT NULL,
    updated_at          DATETIME NOT NULL
);
INSERT INTO requests_old SELECT request_id, kind, entity_id, source_revision, text, edit_field, edit_value, payload_hash, status,
    completed_run_id, completed_refs, revision, created_at, updated_at FROM requests;
DROP TABLE requests;
ALTER TABLE requests_old RENAME TO requests;
CREATE INDEX requests_status ON requests (status, updated_at);
DROP TABLE routine_reviews;
DROP TABLE routine_outcomes;
DROP TABLE routine_occurrences;
DROP TABLE routine_trials;
DROP TABLE routine_definitions;

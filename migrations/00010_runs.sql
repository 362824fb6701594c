-- +goose Up
-- The runner's runs: one row per run of a job, whatever started
-- it (a schedule's occurrence, the owner, a wake-up), with its agent
-- invocations (at most three), outcome, duration and reported usage.
CREATE TABLE runs (
    id                   TEXT PRIMARY KEY,          -- the runner's run ID; publications use <id>-<invocation>
    job                  TEXT NOT NULL,
    trigger_kind         TEXT NOT NULL CHECK (trigger_kind IN ('schedule', 'manual', 'watch')),
    schedule_id          TEXT NOT NULL DEFAULT '',
    occurrence_id        TEXT REFERENCES schedule_occurrences (id),
    runner               TEXT NOT NULL,             -- the credential that runs it
    state                TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed', 'unknown')),
    invocations          INTEGER NOT NULL DEFAULT 0 CHECK (invocations BETWEEN 0 AND 3),
    publication_run_id   TEXT NOT NULL DEFAULT '',
    publication_revision INTEGER NOT NULL DEFAULT 0,
    tokens               INTEGER NOT NULL DEFAULT 0,
    cost_usd             REAL NOT NULL DEFAULT 0,
    duration_ms          INTEGER NOT NULL DEFAULT 0,
    detail               TEXT NOT NULL DEFAULT '',
    resolved_at          DATETIME,                  -- the owner looked at an unknown outcome
    started_at           DATETIME NOT NULL,
    finished_at          DATETIME,
    updated_at           DATETIME NOT NULL
);
CREATE INDEX runs_started ON runs (started_at);
CREATE INDEX runs_state ON runs (state, started_at);

-- +goose Down
DROP TABLE runs;

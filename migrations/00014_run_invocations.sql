-- +goose Up
-- Each agent invocation of a run: the runner reports it as soon
-- as it knows how it ended, so its usage counts towards the daily cost cap
-- even if the run later ends unknown or failed, and a refused publication's
-- errors (JSON Pointer path, expected, a redacted found: never message
-- contents) stay for the owner to read.
CREATE TABLE run_invocations (
    run_id             TEXT NOT NULL REFERENCES runs (id),
    n                  INTEGER NOT NULL CHECK (n BETWEEN 1 AND 3),
    publication_run_id TEXT NOT NULL,
    outcome            TEXT NOT NULL CHECK (outcome IN ('published', 'conflict', 'refused', 'failed', 'unknown')),
    errors             TEXT NOT NULL DEFAULT '[]',  -- JSON [{path, expected, found}], at most 20
    tokens             INTEGER,                     -- NULL: the agent reported none
    cost_usd           REAL,
    duration_ms        INTEGER NOT NULL DEFAULT 0,
    finished_at        DATETIME NOT NULL,
    PRIMARY KEY (run_id, n)
);

-- +goose Down
DROP TABLE run_invocations;

-- +goose Up
-- Spans when the Beeper watch could not see Beeper, from the first failed
-- read to the next that worked (to_at NULL while it lasts), with what
-- failed: the owner and the agent are told messages from then may be missing.
CREATE TABLE coverage_gaps (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    what    TEXT NOT NULL,
    from_at DATETIME NOT NULL,
    to_at   DATETIME
);
CREATE INDEX coverage_gaps_from ON coverage_gaps (from_at);

-- +goose Down
DROP TABLE coverage_gaps;

-- +goose Up
-- The weight page and its import.
--
-- An imported reading belongs to no activity, so measurements.activity_id
-- becomes optional and source says where a row came from ('entered' on
-- Home, 'imported' from a CSV). SQLite cannot drop NOT NULL in place, so the
-- table is copied; supersedes_id names the new table so the rename keeps it.
CREATE TABLE measurements_new (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    activity_id    TEXT REFERENCES activities (id),  -- NULL: an imported reading
    occurrence_key TEXT NOT NULL DEFAULT '',
    metric         TEXT NOT NULL,
    unit           TEXT NOT NULL,
    value          REAL NOT NULL,
    supersedes_id  INTEGER REFERENCES measurements_new (id),
    revision       INTEGER NOT NULL,
    recorded_at    DATETIME NOT NULL,
    source         TEXT NOT NULL DEFAULT 'entered' CHECK (source IN ('entered', 'imported'))
);
INSERT INTO measurements_new (id, activity_id, occurrence_key, metric, unit, value, supersedes_id, revision, recorded_at)
    SELECT id, activity_id, occurrence_key, metric, unit, value, supersedes_id, revision, recorded_at FROM measurements ORDER BY id;
DROP TABLE measurements;
ALTER TABLE measurements_new RENAME TO measurements;
CREATE INDEX measurements_recorded ON measurements (recorded_at);
CREATE INDEX measurements_metric ON measurements (metric, recorded_at);
CREATE INDEX measurements_activity ON measurements (activity_id, occurrence_key);

-- Owner-owned settings, one row per key, never written by a publication
-- (today only 'weight_goal': {"value": 75, "unit": "kg"}).
CREATE TABLE owner_settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    revision   INTEGER NOT NULL,
    updated_at DATETIME NOT NULL
);

-- +goose Down
DROP TABLE owner_settings;
CREATE TABLE measurements_old (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    activity_id    TEXT NOT NULL REFERENCES activities (id),
    occurrence_key TEXT NOT NULL DEFAULT '',
    metric         TEXT NOT NULL,
    unit           TEXT NOT NULL,
    value          REAL NOT NULL,
    supersedes_id  INTEGER REFERENCES measurements_old (id),
    revision       INTEGER NOT NULL,
    recorded_at    DATETIME NOT NULL
);
INSERT INTO measurements_old (id, activity_id, occurrence_key, metric, unit, value, supersedes_id, revision, recorded_at)
    SELECT id, activity_id, occurrence_key, metric, unit, value, supersedes_id, revision, recorded_at FROM measurements
    WHERE activity_id IS NOT NULL ORDER BY id;
DROP TABLE measurements;
ALTER TABLE measurements_old RENAME TO measurements;
CREATE INDEX measurements_recorded ON measurements (recorded_at);
CREATE INDEX measurements_metric ON measurements (metric, recorded_at);
CREATE INDEX measurements_activity ON measurements (activity_id, occurrence_key);

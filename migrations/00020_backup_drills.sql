-- +goose Up
-- Verified backups (docs/operations.md, Backups): every copy `serve
-- --backup-every` or `hearth backup` makes is opened again and checked
-- (integrity_check, and the copy's receipts counted against the live
-- database's up to the copy's revision). One row per attempt, failed ones
-- too: the Runs page shows the newest verified copy, Home a failed drill.
-- Not owner state: a drill bumps no revision.
CREATE TABLE backup_drills (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    path           TEXT NOT NULL,
    ok             INTEGER NOT NULL CHECK (ok IN (0, 1)),
    detail         TEXT NOT NULL DEFAULT '',
    revision       INTEGER NOT NULL DEFAULT 0,  -- the copy's workspace revision
    receipts       INTEGER NOT NULL DEFAULT 0,  -- receipts in the copy (equal to the live count up to revision when ok)
    bytes          INTEGER NOT NULL DEFAULT 0,
    started_at     DATETIME NOT NULL,
    finished_at    DATETIME NOT NULL
);

-- +goose Down
DROP TABLE backup_drills;

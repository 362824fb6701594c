-- +goose Up
-- Wake-ups are leased, not taken: a poll whose answer never
-- reached the runner had deleted the job, and its input was never handled.
-- A lease hides the job from other polls until it is acknowledged (the run
-- that handles it started: the marks it covered are cleared) or expires
-- (offered again). Marks after the lease was issued form a new burst that
-- outlives the acknowledgement. Rows from before this migration have no
-- lease ('') and are offered when due, as before.
ALTER TABLE dirty_jobs ADD COLUMN lease_id TEXT NOT NULL DEFAULT '';
ALTER TABLE dirty_jobs ADD COLUMN lease_expires_at DATETIME;
ALTER TABLE dirty_jobs ADD COLUMN leased_marks INTEGER NOT NULL DEFAULT 0;  -- marks the lease covers
ALTER TABLE dirty_jobs ADD COLUMN next_first_at DATETIME;                   -- first mark after the lease
ALTER TABLE dirty_jobs ADD COLUMN next_due_at DATETIME;                     -- when that newer burst comes due

-- +goose Down
ALTER TABLE dirty_jobs DROP COLUMN next_due_at;
ALTER TABLE dirty_jobs DROP COLUMN next_first_at;
ALTER TABLE dirty_jobs DROP COLUMN leased_marks;
ALTER TABLE dirty_jobs DROP COLUMN lease_expires_at;
ALTER TABLE dirty_jobs DROP COLUMN lease_id;

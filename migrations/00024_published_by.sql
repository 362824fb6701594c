-- +goose Up
-- What a run's work became: each activity and reply draft
-- records the publication that first published it, (publisher,
-- published_run_id) as its receipt is keyed. A re-publication of the same
-- ID keeps the first: the item is the work of the run that introduced it.
-- A runner's publications are <run>-<invocation>, so a run's items are
-- found by three index searches per run, never by time.
ALTER TABLE activities ADD COLUMN publisher TEXT NOT NULL DEFAULT '';
ALTER TABLE activities ADD COLUMN published_run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE reply_drafts ADD COLUMN publisher TEXT NOT NULL DEFAULT '';
ALTER TABLE reply_drafts ADD COLUMN published_run_id TEXT NOT NULL DEFAULT '';

-- Items published before this migration: the publishing transaction
-- stamped the item's created_at and its receipt's received_at with the
-- same instant, so an item created at the instant of exactly one receipt
-- was created by that publication. Any other item stays unattributed.
UPDATE activities SET publisher = r.publisher, published_run_id = r.run_id
    FROM (SELECT received_at, min(publisher) AS publisher, min(run_id) AS run_id FROM receipts
          GROUP BY received_at HAVING count(*) = 1) AS r
    WHERE r.received_at = activities.created_at;
UPDATE reply_drafts SET publisher = r.publisher, published_run_id = r.run_id
    FROM (SELECT received_at, min(publisher) AS publisher, min(run_id) AS run_id FROM receipts
          GROUP BY received_at HAVING count(*) = 1) AS r
    WHERE r.received_at = reply_drafts.created_at;

CREATE INDEX activities_published ON activities (published_run_id, publisher) WHERE published_run_id <> '';
CREATE INDEX reply_drafts_published ON reply_drafts (published_run_id, publisher) WHERE published_run_id <> '';
-- The requests a run's publications completed.
CREATE INDEX requests_completed_run ON requests (completed_run_id) WHERE completed_run_id <> '';

-- +goose Down
DROP INDEX requests_completed_run;
DROP INDEX reply_drafts_published;
DROP INDEX activities_published;
ALTER TABLE reply_drafts DROP COLUMN published_run_id;
ALTER TABLE reply_drafts DROP COLUMN publisher;
ALTER TABLE activities DROP COLUMN published_run_id;
ALTER TABLE activities DROP COLUMN publisher;

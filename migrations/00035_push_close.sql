-- +goose Up
-- A notification closed on the phone once its item is decided, and why a
-- notification was sent or not kept as data (the words are the page's).
-- shown_under: the tag the phone shows the item under (its own key when
-- sent alone, the digest's key when sent in one); decided_at: when hearth
-- saw the item no longer waiting on the owner; closed_at: when the push
-- closing its notification was planned. basis: 'new' (a kind not learned
-- yet), 'usual' (acted on within a day; median_seconds is how soon),
-- 'ignored' (acted on none of judged items within a day), 'digest';
-- quiet_start/quiet_end: the quiet hours that held it; digest_clock: the
-- owner's wall clock of the digest that sent or dropped it. Rows written
-- before keep their words in reason.
ALTER TABLE push_notifications ADD COLUMN shown_under TEXT NOT NULL DEFAULT '';
ALTER TABLE push_notifications ADD COLUMN decided_at DATETIME;
ALTER TABLE push_notifications ADD COLUMN closed_at DATETIME;
ALTER TABLE push_notifications ADD COLUMN basis TEXT NOT NULL DEFAULT '';
ALTER TABLE push_notifications ADD COLUMN judged INTEGER NOT NULL DEFAULT 0;
ALTER TABLE push_notifications ADD COLUMN median_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE push_notifications ADD COLUMN quiet_start TEXT NOT NULL DEFAULT '';
ALTER TABLE push_notifications ADD COLUMN quiet_end TEXT NOT NULL DEFAULT '';
ALTER TABLE push_notifications ADD COLUMN digest_clock TEXT NOT NULL DEFAULT '';
UPDATE push_notifications SET shown_under = item_key WHERE status IN ('sending', 'sent');
-- The items still watched for a decision, read on every plan.
CREATE INDEX push_notifications_open ON push_notifications (created_at) WHERE decided_at IS NULL;

-- +goose Down
DROP INDEX push_notifications_open;
ALTER TABLE push_notifications DROP COLUMN digest_clock;
ALTER TABLE push_notifications DROP COLUMN quiet_end;
ALTER TABLE push_notifications DROP COLUMN quiet_start;
ALTER TABLE push_notifications DROP COLUMN median_seconds;
ALTER TABLE push_notifications DROP COLUMN judged;
ALTER TABLE push_notifications DROP COLUMN basis;
ALTER TABLE push_notifications DROP COLUMN closed_at;
ALTER TABLE push_notifications DROP COLUMN decided_at;
ALTER TABLE push_notifications DROP COLUMN shown_under;

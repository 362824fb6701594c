-- +goose Up
-- A reply draft used to stay live for ever once its reply went out
-- (retracted_at IS NULL), so the agent context, People and Messages read
-- every draft ever sent (9,028 after five seeded years). settled_at marks
-- when a draft stopped waiting for the owner: its reply went out, the
-- owner's own reply replaced it, the owner declined it (no reply needed),
-- or the agent retracted it. The hot reads take live drafts (settled_at IS
-- NULL, a partial index) plus those settled within a recent window.
ALTER TABLE reply_drafts ADD COLUMN settled_at DATETIME;

-- Backfill from what already happened: a retraction; else the newest of a
-- send that went out and an owner decision (own reply, no reply needed)
-- made since the draft was last published (a re-published draft is live
-- again unless its reply went out).
UPDATE reply_drafts SET settled_at = CASE WHEN retracted_at IS NOT NULL THEN retracted_at ELSE (
    SELECT MAX(t) FROM (
        SELECT s.updated_at AS t FROM sends s WHERE s.draft_id = reply_drafts.id AND s.status = 'sent'
        UNION ALL
        SELECT a.created_at FROM reply_actions a WHERE a.draft_id = reply_drafts.id
            AND a.action IN ('own-reply', 'no-reply-needed') AND a.created_at >= reply_drafts.updated_at)) END;

CREATE INDEX reply_drafts_live ON reply_drafts (id) WHERE settled_at IS NULL;
CREATE INDEX reply_drafts_settled ON reply_drafts (settled_at);
CREATE INDEX reply_drafts_chat_settled ON reply_drafts (chat_id, settled_at);

-- The agent context lists sends that are not settled however old; the
-- page walked every send to find them. Few are ever pending or unknown.
CREATE INDEX sends_unsettled ON sends (id) WHERE status IN ('pending', 'unknown');

-- Home reads each metric's newest 30 values that nothing superseded: a
-- lookup per value instead of the set of every superseded value ever.
CREATE INDEX measurements_supersedes ON measurements (supersedes_id) WHERE supersedes_id IS NOT NULL;

-- +goose Down
DROP INDEX measurements_supersedes;
DROP INDEX sends_unsettled;
DROP INDEX reply_drafts_chat_settled;
DROP INDEX reply_drafts_settled;
DROP INDEX reply_drafts_live;
ALTER TABLE reply_drafts DROP COLUMN settled_at;

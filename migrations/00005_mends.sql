-- +goose Up
-- Mends: a routine settles as partial when it was not wholly done.
-- A routine some of whose steps were skipped or dismissed settles as
-- 'partial', never as 'completed' (docs/contract.md: partial completion
-- is recorded honestly). SQLite cannot alter a CHECK, so the table is rebuilt.
CREATE TABLE activity_states_new (
    activity_id TEXT PRIMARY KEY REFERENCES activities (id),
    state       TEXT NOT NULL CHECK (state IN ('available', 'in_progress', 'waiting', 'deferred', 'completed', 'partial', 'skipped', 'dismissed')),
    until       TEXT NOT NULL DEFAULT '',
    note        TEXT NOT NULL DEFAULT '',
    revision    INTEGER NOT NULL,
    updated_at  DATETIME NOT NULL
);
INSERT INTO activity_states_new SELECT activity_id, state, until, note, revision, updated_at FROM activity_states;
DROP TABLE activity_states;
ALTER TABLE activity_states_new RENAME TO activity_states;
-- Deferred rows return on their date, dated or not (Home reads them by until).
CREATE INDEX activity_states_deferred ON activity_states (state, until);

-- A draft and its reply activity leave Home and Messages together: withdraw
-- the live half of any pair an earlier publication split.
UPDATE activities SET retracted_at = (SELECT d.retracted_at FROM reply_drafts d WHERE d.id = activities.draft_id),
       retract_reason = 'its draft was retracted', closed_at = COALESCE(closed_at, (SELECT d.retracted_at FROM reply_drafts d WHERE d.id = activities.draft_id))
 WHERE retracted_at IS NULL AND draft_id IN (SELECT id FROM reply_drafts WHERE retracted_at IS NOT NULL);
UPDATE reply_drafts SET retracted_at = (SELECT MAX(a.retracted_at) FROM activities a WHERE a.draft_id = reply_drafts.id),
       retract_reason = 'its reply activity was retracted'
 WHERE retracted_at IS NULL AND id IN (SELECT draft_id FROM activities WHERE draft_id IS NOT NULL AND retracted_at IS NOT NULL)
   AND id NOT IN (SELECT draft_id FROM activities WHERE draft_id IS NOT NULL AND retracted_at IS NULL);

-- +goose Down
CREATE TABLE activity_states_old (
    activity_id TEXT PRIMARY KEY REFERENCES activities (id),
    state       TEXT NOT NULL CHECK (state IN ('available', 'in_progress', 'waiting', 'deferred', 'completed', 'skipped', 'dismissed')),
    until       TEXT NOT NULL DEFAULT '',
    note        TEXT NOT NULL DEFAULT '',
    revision    INTEGER NOT NULL,
    updated_at  DATETIME NOT NULL
);
INSERT INTO activity_states_old SELECT activity_id, CASE state WHEN 'partial' THEN 'skipped' ELSE state END, until, note, revision, updated_at FROM activity_states;
DROP TABLE activity_states;
ALTER TABLE activity_states_old RENAME TO activity_states;

-- +goose Up
-- Owner-owned: every change of an owner state, append-only.
-- activity_states keeps the current decision; this keeps how it came to be,
-- so an Undo is a new row (cause 'undo', undoes_id: the decision it
-- reverts) and never a deletion, and the agent reads both. prior_* is the
-- state the change replaced (prior_state NULL: there was none), which is
-- what an undo restores. cause: 'home' a decision of Home's controls
-- (undoable for models.UndoWindow), 'rule' a routine settled by its steps
-- in the same transaction, 'value' a saved measurement, 'owner' any other
-- owner decision (Messages, a confirmed send, a past outcome), 'undo' an
-- undo.
CREATE TABLE activity_decisions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    activity_id TEXT NOT NULL REFERENCES activities (id),
    state       TEXT NOT NULL,
    until       TEXT NOT NULL DEFAULT '',
    note        TEXT NOT NULL DEFAULT '',
    prior_state TEXT,
    prior_until TEXT NOT NULL DEFAULT '',
    prior_note  TEXT NOT NULL DEFAULT '',
    cause       TEXT NOT NULL CHECK (cause IN ('home', 'rule', 'value', 'owner', 'undo')),
    undoes_id   INTEGER REFERENCES activity_decisions (id),
    revision    INTEGER NOT NULL,
    created_at  DATETIME NOT NULL
);
CREATE INDEX activity_decisions_activity ON activity_decisions (activity_id, id);
CREATE INDEX activity_decisions_revision ON activity_decisions (revision);
CREATE INDEX activity_decisions_created ON activity_decisions (created_at);
CREATE INDEX activity_decisions_undoes ON activity_decisions (undoes_id) WHERE undoes_id IS NOT NULL;

-- +goose Down
DROP TABLE activity_decisions;

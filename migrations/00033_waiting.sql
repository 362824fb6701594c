-- +goose Up
-- Owner-owned: an item of the "waiting on you" list the owner set aside
-- (Later) and when it comes back. Never a "no": the item stays in the list,
-- shown as set aside until then, and returns by itself. Activities are set
-- aside by their own deferral (activity_states); this holds every other
-- kind, keyed as the list keys it (proposal:, held-send:, schedule:, run:).
CREATE TABLE waiting_later (
    item_key   TEXT PRIMARY KEY,
    until      DATETIME NOT NULL,
    created_at DATETIME NOT NULL
);

-- +goose Down
DROP TABLE waiting_later;

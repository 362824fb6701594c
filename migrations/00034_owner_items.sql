-- +goose Up
-- Owner-owned: tasks and notes the owner typed into Home's quick add, in
-- their own words. The agent reads them (ownerItems in its context) and
-- never writes them: a publication naming one by ID is refused. day is the
-- date the owner typed (YYYY-MM-DD in the owner's zone), '' when none;
-- a removed item keeps its row (removed_at) so its ID never becomes the
-- agent's.
CREATE TABLE owner_items (
    id         TEXT PRIMARY KEY,
    text       TEXT NOT NULL,
    day        TEXT NOT NULL DEFAULT '',
    done_at    DATETIME,
    removed_at DATETIME,
    revision   INTEGER NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL
);
CREATE INDEX owner_items_live ON owner_items (removed_at, done_at);

-- +goose Down
DROP TABLE owner_items;

-- +goose Up
-- Retention (docs/operations.md, Retention): a consumed observation older
-- than the horizon loses its payload. The newest version of each (source,
-- ref) keeps its row and content hash, so the same item sent again is
-- still a duplicate; older consumed versions are deleted (a re-sent item is
-- compared with the newest version only, so they decide nothing).
-- pruned_at marks a row whose payload is gone.
ALTER TABLE observations ADD COLUMN pruned_at DATETIME;
-- The rows a prune may touch: consumed and still holding a payload. The
-- partial index keeps the daily prune from reading years of pruned rows.
CREATE INDEX observations_prunable ON observations (consumed_at) WHERE status = 'consumed' AND pruned_at IS NULL;

-- +goose Down
DROP INDEX observations_prunable;
ALTER TABLE observations DROP COLUMN pruned_at;

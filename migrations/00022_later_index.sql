-- +goose Up
-- Home's Later list reads dismissed states of the last 14 days. The only
-- index led by state was (state, until), which serves deferred items; for
-- dismissed ones it read every dismissal ever (11,101 after five seeded
-- years: two thirds of Home's render time). With (state, updated_at) the
-- OR is two index searches.
CREATE INDEX activity_states_dismissed ON activity_states (state, updated_at);

-- +goose Down
DROP INDEX activity_states_dismissed;

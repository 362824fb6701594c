-- +goose Up
-- Publish checks whether the owner acted on each published activity, a send
-- among the ways; without this index that check scanned every send, once
-- per activity.
CREATE INDEX sends_activity ON sends (activity_id);

-- +goose Down
DROP INDEX sends_activity;

-- +goose Up
-- Home's "waiting on you" lists the oldest open activities first: without
-- this index it sorted every open activity of every day on each Home read
-- (6–8 ms of CPU at 10,000 open), with it it walks the oldest in order
-- and stops at its limit.
CREATE INDEX activities_open_by_age ON activities (created_at, id) WHERE closed_at IS NULL;

-- +goose Down
DROP INDEX activities_open_by_age;

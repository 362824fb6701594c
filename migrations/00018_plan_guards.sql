-- +goose Up
-- Home and the context list requests that are pending OR changed recently.
-- requests_status (status, updated_at) serves the first term only; without
-- an index led by updated_at the OR made SQLite read every request ever
-- made. With both, the OR is two index searches (a plan-guard test in
-- models/plan_test.go keeps it so).
CREATE INDEX requests_updated ON requests (updated_at);

-- The context says which revisions of a routine have occurrences; the only
-- index led by routine_id ordered its occurrences by occasion, so asking
-- about the newest revision walked the older revisions' days first.
CREATE INDEX routine_occurrences_revision ON routine_occurrences (routine_id, revision);

-- The Runs page asks when the sources a publication cited were observed.
CREATE INDEX source_refs_revision ON source_refs (revision, observed_at);

-- +goose Down
DROP INDEX source_refs_revision;
DROP INDEX routine_occurrences_revision;
DROP INDEX requests_updated;

-- +goose Up
-- Agent-written input (docs/contract.md, Observations): what the agent's fetchers saw at
-- a provider, one row per version of (source, ref). The log is append-only:
-- a changed payload is a new row with a new id, so an id always names one
-- payload, and a publication consumes exactly the versions it cites. No
-- revision: observations are not state the owner acts on, so a publication's
-- expectedRevision does not go stale when one arrives.
CREATE TABLE observations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    source           TEXT NOT NULL,
    ref              TEXT NOT NULL,
    change_type      TEXT NOT NULL CHECK (change_type IN ('created', 'modified', 'deleted')),
    -- 'agent' through the API; 'hearth' is kept for in-process watchers. Never 'user'.
    actor            TEXT NOT NULL CHECK (actor IN ('agent', 'hearth')),
    kind             TEXT NOT NULL,
    provider_id      TEXT NOT NULL,
    raw              TEXT NOT NULL,  -- RFC 8785 canonical JSON of payload.raw
    content_hash     TEXT NOT NULL,  -- sha256 of the canonical {source, payload}
    status           TEXT NOT NULL CHECK (status IN ('pending', 'consumed')),
    consumed_run_id  TEXT NOT NULL DEFAULT '',
    consumed_revision INTEGER,       -- the revision of the consuming publication (its receipt)
    credential_id    TEXT NOT NULL DEFAULT '',  -- the writing agent credential; '' for hearth itself
    received_at      DATETIME NOT NULL,
    consumed_at      DATETIME,
    CHECK ((status = 'pending') = (consumed_at IS NULL))
);
-- The latest version of (source, ref): ORDER BY id DESC LIMIT 1.
CREATE INDEX observations_latest ON observations (source, ref, id);
-- The pending list, paged by id.
CREATE INDEX observations_pending ON observations (id) WHERE status = 'pending';

-- +goose Down
DROP TABLE observations;

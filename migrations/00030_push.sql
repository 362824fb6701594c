-- +goose Up
-- Web Push to the owner's phones. A subscription is what the browser's
-- pushManager returned (endpoint and its keys); a dead one (404/410 from
-- the push service) is deleted.
CREATE TABLE push_subscriptions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint   TEXT NOT NULL UNIQUE,
    p256dh     TEXT NOT NULL,
    auth       TEXT NOT NULL,
    created_at DATETIME NOT NULL
);

-- One row per item hearth considered notifying, so an item is notified at
-- most once. item_key is "activity:<id>" (or "digest:<date>" for a morning
-- digest); status: 'sending' claimed and being sent, 'sent', 'held' for
-- quiet hours (until the digest), 'digested' sent in a digest, 'dropped'
-- decided before the digest, 'muted' a kind the owner does not act on
-- within a day, 'failed' no subscription took it. reason is the words
-- More shows.
CREATE TABLE push_notifications (
    item_key   TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    title      TEXT NOT NULL,
    body       TEXT NOT NULL,
    url        TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('sending', 'sent', 'held', 'digested', 'dropped', 'muted', 'failed')),
    reason     TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL
);
CREATE INDEX push_notifications_status ON push_notifications (status, created_at);
CREATE INDEX push_notifications_updated ON push_notifications (updated_at);

-- +goose Down
DROP TABLE push_notifications;
DROP TABLE push_subscriptions;

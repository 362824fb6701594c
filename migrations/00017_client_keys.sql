-- +goose Up
-- Offline entry: an owner action queued on the phone carries a
-- client key, made when the owner acted, so sending it again (a retry, a
-- second tab, a reply lost on the way back) is answered as the first send
-- was and changes nothing. action is the action's canonical form: the same
-- key with another action is refused.
CREATE TABLE owner_client_keys (
    key        TEXT PRIMARY KEY,
    action     TEXT NOT NULL,
    revision   INTEGER NOT NULL,
    created_at DATETIME NOT NULL
);

-- +goose Down
DROP TABLE owner_client_keys;

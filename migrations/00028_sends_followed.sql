-- +goose Up
-- What became of a send after it went out, followed until answered or 14
-- days pass: delivered_at (Beeper's send status says it reached someone),
-- seen_at (a read receipt; a bare "seen" is dated when hearth first read
-- it), answered_at (the first message from the other side that counts,
-- after the send). NULL: not (yet) known.
ALTER TABLE sends ADD COLUMN delivered_at DATETIME;
ALTER TABLE sends ADD COLUMN seen_at DATETIME;
ALTER TABLE sends ADD COLUMN answered_at DATETIME;
-- Sent replies by time: the ones still followed (the watch reads them on
-- every pass) and the 90 days of reply rates People shows.
CREATE INDEX sends_sent ON sends (created_at) WHERE status = 'sent';

-- +goose Down
DROP INDEX sends_sent;
ALTER TABLE sends DROP COLUMN answered_at;
ALTER TABLE sends DROP COLUMN seen_at;
ALTER TABLE sends DROP COLUMN delivered_at;

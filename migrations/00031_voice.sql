-- +goose Up
-- The draft text a reply was sent from (the candidate the owner started
-- from), kept with the send because a later publication may replace the
-- draft's candidates; NULL for the owner's own words and for an earlier
-- send whose draft text is no longer certain. How the sent text differs
-- from it is read from the two texts (internal/voice), never stored.
ALTER TABLE sends ADD COLUMN draft_body TEXT;

-- Earlier draft sends, where the draft text is certain: one sent word for
-- word is its own draft text; an edited one's is the candidate its edit
-- chose (else the first) when the draft was last published before the
-- send was claimed (a send's revision moves on when it settles, so time
-- tells, not the revision).
UPDATE sends SET draft_body = body WHERE draft_id IS NOT NULL AND written_candidate_id <> '';
UPDATE sends SET draft_body = (
    SELECT json_extract(COALESCE(
               (SELECT c.value FROM json_each(d.candidates) c WHERE json_extract(c.value, '$.id') = e.selected_candidate_id),
               json_extract(d.candidates, '$[0]')), '$.body')
    FROM reply_drafts d LEFT JOIN draft_edits e ON e.draft_id = d.id
    WHERE d.id = sends.draft_id AND d.updated_at < sends.created_at)
WHERE draft_id IS NOT NULL AND written_candidate_id = '';

-- +goose Down
ALTER TABLE sends DROP COLUMN draft_body;

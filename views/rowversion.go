package views

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	"hearth/internal/contract"
	"hearth/models"
)

// rowVersion fingerprints what a row shows of its activity (its own fields,
// state, draft and steps), so hearth.js can tell whether a refresh changed
// the row the owner is editing. Revisions of publications are
// left out, so a republish of the same content keeps the version; the
// metric's recent values are left out, because another row's measurement
// changes them without changing this row.
func rowVersion(r models.HomeRow) string {
	h := fnv.New64a()
	_ = json.NewEncoder(h).Encode(versioned(r))
	return fmt.Sprintf("%016x", h.Sum64())
}

func versioned(r models.HomeRow) models.HomeRow {
	if m := r.Measurement; m != nil {
		c := *m
		c.Recent, c.Last = nil, nil
		r.Measurement = &c
	}
	// A republished draft with the same words only moves its revision.
	if d := r.Draft; d != nil {
		c := *d
		c.Revision = 0
		r.Draft = &c
	}
	r.Revision = 0
	if len(r.Children) > 0 {
		kids := make([]models.HomeRow, len(r.Children))
		for i, c := range r.Children {
			kids[i] = versioned(c)
		}
		r.Children = kids
	}
	return r
}

// draftWatch names what a conversation's draft section shows, as /events
// names changes: the draft, the chat (decisions, own replies) and the reply
// activity. hearth.js shows "This page changed elsewhere" while the owner
// edits it only when one of these changed.
func draftWatch(chatID string, d models.ChatDraft) string {
	keys := "draft:" + d.ID + " chat:" + chatID
	if d.ActivityID != "" {
		keys += " activity:" + d.ActivityID
	}
	return keys
}

// editRevision is the revision of the owner's edit a reply editor holds
// ("0" for none): static/keep.js's autosave names it, so it never
// overwrites a newer edit saved elsewhere.
func editRevision(d *contract.DraftView) string {
	if d.OwnerEdit == nil {
		return "0"
	}
	return fmt.Sprint(d.OwnerEdit.Revision)
}

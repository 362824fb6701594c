package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/models"
)

// demoRhythm is a person of the demo whose chat has a past, so People
// shows their rhythm: the days ago each conversation started, and who
// wrote first in each.
type demoRhythm struct {
	id, name, context, chatID string
	other                     beeper.User
	started                   []int
	ownerFirst                []bool
}

// demoRhythms are Lena, who writes every five days or so and usually
// first, and Jonas, usually every 9 days but silent for 23 now: People
// says he is drifting.
var demoRhythms = []demoRhythm{
	{id: "jonas-weber", name: "Jonas Weber", context: "Old flatmate from Leipzig; plays bass in a band, calls on Sundays.",
		chatID: "!jonas-weber:beeper.local", other: beeper.User{ID: "@jonas:beeper.local", FullName: "Jonas Weber"},
		started:    []int{90, 81, 71, 62, 53, 44, 34, 23},
		ownerFirst: []bool{true, false, true, true, false, true, false, true}},
	{id: "lena-brandt", name: "Lena Brandt", context: "Sister; lives in Hamburg, trains for a half marathon.",
		chatID: "!lena-brandt:beeper.local", other: beeper.User{ID: "@lena:beeper.local", FullName: "Lena Brandt"},
		started:    []int{62, 57, 51, 46, 40, 35, 30, 24, 19, 14, 8, 2},
		ownerFirst: []bool{false, false, true, false, false, false, true, false, false, true, false, false}},
}

// demoRhythmLines are the words of a conversation: an opening, an answer,
// and the owner's last word, so no reply is owed.
var demoRhythmLines = [3]string{"Hey, how are things?", "Good! Busy week, but good.", "Talk soon 👋"}

// addDemoRhythmChats adds the chats of demoRhythms to the demo's fake
// Beeper, each conversation three messages twenty minutes apart, starting
// its days before now, the last from the owner.
func addDemoRhythmChats(f *beepertest.Fake, now time.Time) {
	for _, p := range demoRhythms {
		var msgs []beeper.Message
		for i, ago := range p.started {
			at := now.Add(-time.Duration(ago) * 24 * time.Hour).Truncate(time.Minute)
			first, second := p.other.ID, beepertest.SelfID
			if p.ownerFirst[i] {
				first, second = second, first
			}
			for j, from := range []string{first, second, beepertest.SelfID} {
				msgs = append(msgs, beeper.Message{ID: fmt.Sprintf("m-%s-%d-%d", p.id, i, j), SenderID: from, Text: demoRhythmLines[j],
					Timestamp: at.Add(time.Duration(j) * 20 * time.Minute)})
			}
		}
		f.AddHistory(p.chatID, p.name, p.other, msgs)
	}
}

// publishDemoRhythmPeople publishes the people of demoRhythms, each citing
// their chat, which is how hearth knows the chat is theirs.
func publishDemoRhythmPeople(ctx context.Context, store *models.Store, now time.Time) error {
	rev, err := store.Revision(ctx)
	if err != nil {
		return err
	}
	var refs, people []any
	for _, p := range demoRhythms {
		ref := "beeper-" + p.id + "-chat"
		refs = append(refs, map[string]any{"id": ref, "kind": "beeper", "accountId": beepertest.AccountID, "chatId": p.chatID,
			"messageId": fmt.Sprintf("m-%s-%d-2", p.id, len(p.started)-1), "observedAt": now.UTC().Add(-10 * time.Minute).Format(time.RFC3339)})
		people = append(people, map[string]any{"id": p.id, "name": p.name, "context": p.context, "evidenceIds": []any{ref}})
	}
	body, err := json.Marshal(map[string]any{"runId": "demo-people-" + now.UTC().Format(time.DateOnly), "jobKey": "messages", "expectedRevision": rev,
		"generatedAt": now.UTC().Format(time.RFC3339), "sourceRefs": refs, "people": people, "activities": []any{}, "replyDrafts": []any{},
		"retractions": []any{}, "completedRequests": []any{}})
	if err != nil {
		return err
	}
	_, _, err = publish(ctx, store, "demo", body)
	return err
}

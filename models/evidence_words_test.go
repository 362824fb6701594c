package models

import (
	"context"
	"fmt"
	"testing"
)

// TestEvidenceChipsNameThePersonFileOrChatAndLinkToIt: a chip names what it
// cites in words (the person a file is about, a file's title, the person a
// chat is with) and links where hearth shows it; its ID and hash stay for
// the operator.
func TestEvidenceChipsNameThePersonFileOrChatAndLinkToIt(t *testing.T) {
	s, _ := newTestStore(t)
	p := newPub("run-1", 0)
	p["sourceRefs"] = append(p["sourceRefs"].([]any),
		map[string]any{"id": "life-2", "kind": "life", "path": "areas/sleep-and-rest.md",
			"contentHash": "sha256:" + fmt.Sprintf("%064x", 2), "observedAt": "2026-09-29T06:58:00Z"},
		map[string]any{"id": "chat-ref", "kind": "beeper", "accountId": "acc", "chatId": "!ana:beeper.local",
			"messageId": "m1", "observedAt": "2026-09-29T06:58:00Z"},
		map[string]any{"id": "chat-unknown", "kind": "beeper", "accountId": "acc", "chatId": "!nobody:beeper.local",
			"messageId": "m2", "observedAt": "2026-09-29T06:58:00Z"})
	ana := person("ana")
	ana["name"] = "Ana Okafor"
	d := draft("d1", "yes")
	d["chatId"] = "!ana:beeper.local"
	d["personId"] = "ana"
	p.Add("people", ana).Add("replyDrafts", d)
	mustPublish(t, s, p)

	chips, err := s.EvidenceChips(context.Background(), []string{"life-1", "life-2", "chat-ref", "chat-unknown"})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ title, href string }{
		{"Ana Okafor", "/people#person-ana"},
		{"Sleep and rest", ""},
		{"Chat with Ana Okafor", "/messages/%21ana:beeper.local"},
		{"A chat", "/messages/%21nobody:beeper.local"},
	}
	if len(chips) != len(want) {
		t.Fatalf("chips %+v", chips)
	}
	for i, w := range want {
		if chips[i].Title != w.title || chips[i].Href != w.href {
			t.Errorf("chip %d (%s): %q → %q, want %q → %q", i, chips[i].ID, chips[i].Title, chips[i].Href, w.title, w.href)
		}
	}
	// The operator's detail is kept beside the words.
	if chips[0].Label != "people/ana.md" || chips[0].Hash == "" || chips[2].Label != "!ana:beeper.local" {
		t.Errorf("operator detail lost: %+v", chips)
	}
}

package demo

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"hearth/models"
)

// More's "what was notified, and why" in the demo: the day's reply draft,
// task, held send and routine proposal were each sent once with why;
// nothing is left held for a digest and no phone stays subscribed, so a
// phone subscribed in the demo is sent no backlog of the seeded items.
func TestDemoMoreListsWhatWasNotifiedAndWhyWithNoPhoneLeftSubscribed(t *testing.T) {
	now := time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC) // in the default quiet hours
	_, store := demoStore(t, now)
	ctx := context.Background()
	v, err := store.Push(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v.Subscriptions != 0 {
		t.Errorf("the demo leaves %d phones subscribed", v.Subscriptions)
	}
	if v.Quiet != (models.QuietHours{Start: models.DefaultQuietStart, End: models.DefaultQuietEnd}) {
		t.Errorf("the demo's quiet hours are %+v, want the defaults", v.Quiet)
	}
	sent := map[string]int{}
	for _, n := range v.Recent {
		if n.Status != models.PushSent {
			t.Errorf("%s is %s, want sent (nothing left for a digest)", n.ItemKey, n.Status)
		}
		if n.Basis == "" || n.Body == "" {
			t.Errorf("%s says no why (%q) or no item (%q)", n.ItemKey, n.Basis, n.Body)
		}
		sent[n.Kind]++
	}
	for _, k := range []string{models.WaitReply, models.WaitTask, models.WaitHeldSend, models.WaitProposal} {
		if sent[k] == 0 {
			t.Errorf("More lists no %s notified: %v", k, sent)
		}
	}
	// A phone subscribed in the demo is notified only of what comes after.
	key := make([]byte, 65)
	key[0] = 4
	auth := base64.RawURLEncoding.EncodeToString(make([]byte, 16))
	if err := store.SavePushSubscription(ctx, "https://push.invalid/later-phone", base64.RawURLEncoding.EncodeToString(key), auth); err != nil {
		t.Fatal(err)
	}
	outs, err := store.PlanPushes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 0 {
		t.Errorf("a phone subscribed after the demo is sent %d pushes, first %+v", len(outs), outs[0].Payload)
	}
}

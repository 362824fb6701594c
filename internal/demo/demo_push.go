package demo

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"hearth/models"
)

// demoPushEndpoint is the demo phone's push endpoint: a reserved name that
// never resolves, as nothing seeded is ever sent anywhere.
const demoPushEndpoint = "https://push.invalid/demo-phone"

// seedDemoPush gives More's "what was notified, and why" a history: a
// phone subscribed last evening, and as the day starts hearth notifies
// what waits on the owner since then (the day's reply draft and task, the
// held send for later), each with why, and the push service takes them.
// Quiet hours are off for that one plan, so the history is the same
// whatever the hour the demo starts (a held item would go out in a later
// digest), and back to the defaults after. The phone is then
// unsubscribed: the demo sends nothing, and a phone subscribed in it is
// notified only of what comes after.
func seedDemoPush(ctx context.Context, store *models.Store, clock *Clock, now time.Time) error {
	loc, err := time.LoadLocation(demoZone)
	if err != nil {
		return err
	}
	today := now.In(loc)
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	auth := make([]byte, 16)
	if _, err := rand.Read(auth); err != nil {
		return err
	}
	clock.set(time.Date(today.Year(), today.Month(), today.Day()-1, 21, 0, 0, 0, loc))
	b64 := base64.RawURLEncoding.EncodeToString
	if err := store.SavePushSubscription(ctx, demoPushEndpoint, b64(key.PublicKey().Bytes()), b64(auth)); err != nil {
		return fmt.Errorf("demo push: %w", err)
	}
	clock.set(now)
	if err := store.SetQuietHours(ctx, models.QuietHours{Start: "00:00", End: "00:00"}); err != nil {
		return fmt.Errorf("demo push: %w", err)
	}
	outs, err := store.PlanPushes(ctx)
	if err != nil {
		return fmt.Errorf("demo push: %w", err)
	}
	for _, out := range outs {
		if err := store.SettlePush(ctx, out.Key, true, nil); err != nil {
			return fmt.Errorf("demo push: %w", err)
		}
	}
	if err := store.SetQuietHours(ctx, models.QuietHours{Start: models.DefaultQuietStart, End: models.DefaultQuietEnd}); err != nil {
		return fmt.Errorf("demo push: %w", err)
	}
	if err := store.RemovePushSubscription(ctx, demoPushEndpoint); err != nil {
		return fmt.Errorf("demo push: %w", err)
	}
	return nil
}

// Package pushflow sends hearth's Web Push notifications around the store:
// the store decides and records what to notify (models.PlanPushes, one
// commit), this package signs (VAPID, RFC 8292), encrypts (aes128gcm,
// RFC 8291) and posts each to the push services with webpush-go, outside
// any transaction, and records the outcome (models.SettlePush). It runs in
// the background, woken after each commit and once a minute for the
// morning digest.
package pushflow

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/SherClockHolmes/webpush-go"

	"hearth/internal/privatefile"
	"hearth/models"
)

// KeysFile is the file in the data dir that keeps the VAPID key pair.
const KeysFile = "vapid.json"

// Keys are the VAPID key pair, base64url as browsers and webpush-go use them.
type Keys struct {
	Public  string `json:"publicKey"`
	Private string `json:"privateKey"`
}

// LoadKeys reads the VAPID keys of dataDir, generating and keeping them
// (owner-only) the first time: a new pair would orphan every subscription,
// since a browser's subscription is bound to the public key it was made with.
func LoadKeys(dataDir string) (Keys, error) {
	path := filepath.Join(dataDir, KeysFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		var k Keys
		if k.Private, k.Public, err = webpush.GenerateVAPIDKeys(); err != nil {
			return Keys{}, fmt.Errorf("pushflow: generate VAPID keys: %w", err)
		}
		b, _ = json.Marshal(k)
		err := privatefile.CreateExclusive(path, b)
		if errors.Is(err, fs.ErrExist) {
			return LoadKeys(dataDir) // another process made them first
		}
		if err != nil {
			return Keys{}, fmt.Errorf("pushflow: %w", err)
		}
		return k, nil
	}
	if err != nil {
		return Keys{}, fmt.Errorf("pushflow: %w", err)
	}
	var k Keys
	if err := json.Unmarshal(b, &k); err != nil || k.Public == "" || k.Private == "" {
		return Keys{}, fmt.Errorf("pushflow: %s is not a VAPID key pair; move it away to make a new one (phones then subscribe again)", path)
	}
	return k, nil
}

// Store is what the sender asks of the store.
type Store interface {
	PlanPushes(ctx context.Context) ([]models.PushOut, error)
	SettlePush(ctx context.Context, key string, delivered bool, dead []string) error
}

// Options tune a Sender; the zero value is production.
type Options struct {
	// Subject is the VAPID contact (a mailto: or https: URL) push services
	// may use to reach the operator.
	Subject string
	// Client posts to the push services (default: 30 s timeout).
	Client *http.Client
	// Every is how often the sender looks without a commit, so the morning
	// digest goes out when quiet hours end (default one minute).
	Every time.Duration
	// Log receives failures; nil discards.
	Log *slog.Logger
}

// DefaultSubject is the VAPID contact when none is configured.
const DefaultSubject = "mailto:hearth@example.com"

// Sender sends what the store plans. Committed wakes it, so it is a
// models.Notifier beside the SSE hub.
type Sender struct {
	store Store
	keys  Keys
	opts  Options
	wake  chan struct{}
}

// New returns a sender of store's notifications signed with keys.
func New(store Store, keys Keys, opts Options) *Sender {
	if opts.Subject == "" {
		opts.Subject = DefaultSubject
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if opts.Every <= 0 {
		opts.Every = time.Minute
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Sender{store: store, keys: keys, opts: opts, wake: make(chan struct{}, 1)}
}

// Committed wakes the sender after a commit; it never blocks the committer.
func (s *Sender) Committed(int64, []string) {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run sends until ctx ends: after each commit and every Options.Every.
func (s *Sender) Run(ctx context.Context) {
	tick := time.NewTicker(s.opts.Every)
	defer tick.Stop()
	for {
		if err := s.Once(ctx); err != nil && ctx.Err() == nil {
			s.opts.Log.Warn("push: not sent", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-tick.C:
		}
	}
}

// Once plans and sends what is due now.
func (s *Sender) Once(ctx context.Context) error {
	outs, err := s.store.PlanPushes(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, out := range outs {
		delivered, dead := s.send(ctx, out)
		errs = append(errs, s.store.SettlePush(ctx, out.Key, delivered, dead))
	}
	return errors.Join(errs...)
}

// Topic is the Web Push Topic of a notification's tag (RFC 8030 5.4: at
// most 32 base64url characters, so a digest of the tag): a push service
// keeps only the newest undelivered push of a topic, so a close replaces
// its item's push that never reached the phone.
func Topic(tag string) string {
	sum := sha256.Sum256([]byte(tag))
	return base64.RawURLEncoding.EncodeToString(sum[:])[:32]
}

// send posts out to every subscription: delivered when a push service took
// it, dead the endpoints that answered 404 or 410 (the subscription is gone).
func (s *Sender) send(ctx context.Context, out models.PushOut) (delivered bool, dead []string) {
	msg, err := json.Marshal(out.Payload)
	if err != nil {
		return false, nil
	}
	for _, sub := range out.Subscriptions {
		resp, err := webpush.SendNotificationWithContext(ctx, msg, &webpush.Subscription{Endpoint: sub.Endpoint,
			Keys: webpush.Keys{P256dh: sub.P256dh, Auth: sub.Auth}}, &webpush.Options{
			HTTPClient: s.opts.Client, Subscriber: s.opts.Subject, TTL: 12 * 60 * 60, Urgency: webpush.UrgencyNormal, Topic: Topic(out.Payload.Tag),
			VAPIDPublicKey: s.keys.Public, VAPIDPrivateKey: s.keys.Private,
		})
		if err != nil {
			s.opts.Log.Warn("push: post failed", "item", out.Key, "err", err)
			continue
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			delivered = true
		case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
			dead = append(dead, sub.Endpoint)
		default:
			s.opts.Log.Warn("push: refused", "item", out.Key, "status", resp.StatusCode)
		}
	}
	return delivered, dead
}

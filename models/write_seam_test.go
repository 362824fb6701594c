package models

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"hearth/internal/costpolicy"
)

// countingNotifier records the revisions the notifier (the SSE hub) is told.
type countingNotifier struct {
	mu   sync.Mutex
	revs []int64
}

func (n *countingNotifier) Committed(revision int64, _ []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.revs = append(n.revs, revision)
}

func (n *countingNotifier) told() []int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]int64(nil), n.revs...)
}

// TestAWriteThatBumpsNoRevisionIsSeenByWhatKeysOnIt: bookkeeping that
// bumps no revision (a session ended, a backup drill recorded, a
// credential minted, a wake-up leased) goes through the seam with revision
// 0: the revision stays and the SSE hub hears nothing, but Writes, which
// the page caches key on, moves, and what keyed on the write sees it (the
// session cache refuses the ended session at once). A refused write rolls
// back and moves nothing.
func TestAWriteThatBumpsNoRevisionIsSeenByWhatKeysOnIt(t *testing.T) {
	ctx := context.Background()
	const pass = "correct horse battery"
	cases := []struct {
		name string
		// arrange prepares the store and returns the write, and what to
		// check after it (nil: only what every case checks).
		arrange func(t *testing.T, s *Store) (write func() error, seen func(t *testing.T))
	}{
		{"a session ended", func(t *testing.T, s *Store) (func() error, func(*testing.T)) {
			must(t, s.SetOwnerPassphrase(ctx, pass))
			token, err := s.Login(ctx, pass)
			must(t, err)
			_, err = s.AuthenticateSession(ctx, token) // now cached for SessionTrustWindow
			must(t, err)
			return func() error { return s.Logout(ctx, token) }, func(t *testing.T) {
				if _, err := s.AuthenticateSession(ctx, token); !errors.Is(err, ErrUnauthorized) {
					t.Errorf("the session cache still trusts the ended session: %v", err)
				}
			}
		}},
		{"every session ended", func(t *testing.T, s *Store) (func() error, func(*testing.T)) {
			must(t, s.SetOwnerPassphrase(ctx, pass))
			token, err := s.Login(ctx, pass)
			must(t, err)
			_, err = s.AuthenticateSession(ctx, token)
			must(t, err)
			return func() error { _, err := s.LogoutAll(ctx); return err }, func(t *testing.T) {
				if _, err := s.AuthenticateSession(ctx, token); !errors.Is(err, ErrUnauthorized) {
					t.Errorf("the session cache still trusts a session ended by logout-all: %v", err)
				}
			}
		}},
		{"a failed backup recorded", func(t *testing.T, s *Store) (func() error, func(*testing.T)) {
			return func() error {
					if _, err := s.VerifiedBackup(ctx, filepath.Join(t.TempDir(), "missing-dir", "copy.db")); err == nil {
						t.Fatal("a backup into a missing directory succeeded")
					}
					return nil
				}, func(t *testing.T) {
					if n, err := homeNotice(ctx, s, costpolicy.Policy{}); err != nil || n.BackupFailed == nil {
						t.Errorf("Home's notice after a failed backup: %+v, %v", n.BackupFailed, err)
					}
				}
		}},
		{"a credential minted", func(t *testing.T, s *Store) (func() error, func(*testing.T)) {
			return func() error {
				_, _, err := s.CreateCredential(ctx, "runner", []string{ScopeContextRead})
				return err
			}, nil
		}},
		{"a wake-up leased", func(t *testing.T, s *Store) (func() error, func(*testing.T)) {
			mustMark(t, s, "messages", "1 new message", 0)
			return func() error {
				if w := mustLease(t, s); len(w) != 1 {
					t.Fatalf("leased %+v, want the one mark", w)
				}
				return nil
			}, nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newTestStore(t)
			n := &countingNotifier{}
			s.SetNotifier(n)
			write, seen := c.arrange(t, s)
			writes, rev, told := s.Writes(), s.LatestRevision(), n.told()
			must(t, write())
			if s.Writes() <= writes {
				t.Errorf("Writes %d after the write, %d before: a page cache keyed on it keeps the old page", s.Writes(), writes)
			}
			if s.LatestRevision() != rev || mustRevision(t, s) != rev {
				t.Errorf("the revision moved %d -> %d (stored %d): bookkeeping bumps none", rev, s.LatestRevision(), mustRevision(t, s))
			}
			if now := n.told(); len(now) != len(told) {
				t.Errorf("the SSE hub heard of bookkeeping: told %v, before %v", now, told)
			}
			if seen != nil {
				seen(t)
			}
		})
	}

	refused := []struct {
		name string
		act  func(s *Store) error
	}{
		{"a credential name already active", func(s *Store) error {
			_, _, err := s.CreateCredential(ctx, "runner", []string{ScopeContextRead})
			return err
		}},
		{"a revoke of no credential", func(s *Store) error {
			_, err := s.RevokeCredential(ctx, "cred_nosuch")
			return err
		}},
	}
	for _, c := range refused {
		t.Run("refused: "+c.name, func(t *testing.T) {
			s, _ := newTestStore(t)
			if _, _, err := s.CreateCredential(ctx, "runner", []string{ScopeContextRead}); err != nil {
				t.Fatal(err)
			}
			n := &countingNotifier{}
			s.SetNotifier(n)
			writes, rev := s.Writes(), s.LatestRevision()
			if err := c.act(s); err == nil {
				t.Fatal("accepted")
			}
			if s.Writes() != writes || s.LatestRevision() != rev || len(n.told()) != 0 {
				t.Errorf("a refused write moved Writes %d -> %d, the revision %d -> %d, told the hub %v", writes, s.Writes(), rev, s.LatestRevision(), n.told())
			}
		})
	}
}

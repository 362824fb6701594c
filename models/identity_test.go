package models

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"hearth/internal/storetest"
)

// TestLogoutEndsSessionAtOnce holds a logout before its commit and checks the
// cookie in that window, as a concurrent request would: the check must not
// put the session back in the cache, so it is dead as soon as logout returns.
func TestLogoutEndsSessionAtOnce(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		end  func(s *Store, token string) error
	}{
		{"logout", func(s *Store, token string) error { return s.Logout(ctx, token) }},
		{"logout-all", func(s *Store, _ string) error { _, err := s.LogoutAll(ctx); return err }},
	}
	s, _ := newTestStore(t)
	if err := s.SetOwnerPassphrase(ctx, "correct horse battery staple"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			token, err := s.Login(ctx, "correct horse battery staple")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.AuthenticateSession(ctx, token); err != nil {
				t.Fatalf("fresh session: %v", err)
			}

			s.writeMu.Lock() // the logout waits here, before its commit
			done := make(chan error, 1)
			go func() { done <- tc.end(s, token) }()
			// Once the logout waits at the lock, one that forgets the cached
			// session before committing has forgotten it.
			storetest.WaitBlocked(t, "hearth/models.(*Store).write")
			if _, err := s.AuthenticateSession(ctx, token); err != nil {
				s.writeMu.Unlock()
				t.Fatalf("request while the logout is uncommitted: %v, want the session still valid", err)
			}
			s.writeMu.Unlock()
			if err := <-done; err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}

			if _, err := s.AuthenticateSession(ctx, token); !errors.Is(err, ErrUnauthorized) {
				t.Fatalf("after %s returned: %v, want ErrUnauthorized at once", tc.name, err)
			}
		})
	}
}

// TestAPassphraseIsHashedAtBcryptsDefaultCostUnlessATestAsksLess holds
// that a store opened as serve opens it hashes at bcrypt.DefaultCost: only
// a test's PassphraseCost lowers it.
func TestAPassphraseIsHashedAtBcryptsDefaultCostUnlessATestAsksLess(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts Options
		want int
	}{
		{"as serve opens it", Options{}, bcrypt.DefaultCost},
		{"a test's", Options{PassphraseCost: bcrypt.MinCost}, bcrypt.MinCost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(ctx, t.TempDir(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.SetOwnerPassphrase(ctx, "correct horse battery staple"); err != nil {
				t.Fatal(err)
			}
			var o owner
			if err := s.db.First(&o).Error; err != nil {
				t.Fatal(err)
			}
			if cost, err := bcrypt.Cost([]byte(o.PasswordHash)); err != nil || cost != tc.want {
				t.Errorf("stored hash's cost = %d, %v; want %d", cost, err, tc.want)
			}
			if _, err := s.Login(ctx, "correct horse battery staple"); err != nil {
				t.Errorf("login: %v", err)
			}
		})
	}
}

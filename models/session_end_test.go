package models

import (
	"context"
	"errors"
	"testing"
)

// TestRecheckSessionSeesAnEndCommittedByAnotherStore: a second Store on
// the same file is what the CLI's logout-all opens; its end reaches this
// Store's cache only through a fresh read.
func TestRecheckSessionSeesAnEndCommittedByAnotherStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newTestStore(t)
	must(t, s.SetOwnerPassphrase(ctx, "correct horse battery"))
	token, err := s.Login(ctx, "correct horse battery")
	must(t, err)
	_, err = s.AuthenticateSession(ctx, token) // now cached
	must(t, err)

	cli, err := OpenExisting(ctx, s.DataDir(), Options{})
	must(t, err)
	defer cli.Close()
	if _, err := cli.LogoutAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AuthenticateSession(ctx, token); err != nil {
		t.Fatalf("within the trust window the cached verification stands: %v", err)
	}
	if err := s.RecheckSession(ctx, token); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("RecheckSession after another store's logout-all: %v, want ErrUnauthorized", err)
	}
	if _, err := s.AuthenticateSession(ctx, token); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("a recheck that found the session gone left it cached: %v", err)
	}
}

func TestSessionsEndedIsSignalledByEveryWayASessionEnds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newTestStore(t)
	must(t, s.SetOwnerPassphrase(ctx, "correct horse battery"))
	ends := map[string]func(token string) error{
		"logout":     func(token string) error { return s.Logout(ctx, token) },
		"logout-all": func(string) error { _, err := s.LogoutAll(ctx); return err },
		"passwd":     func(string) error { return s.SetOwnerPassphrase(ctx, "correct horse battery") },
	}
	for name, end := range ends {
		token, err := s.Login(ctx, "correct horse battery")
		must(t, err)
		ended := s.SessionsEnded()
		select {
		case <-ended:
			t.Fatalf("%s: signalled before anything ended", name)
		default:
		}
		must(t, end(token))
		select {
		case <-ended:
		default:
			t.Fatalf("%s: SessionsEnded not closed when %s returned", name, name)
		}
		if err := s.RecheckSession(ctx, token); !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("%s: the session is still there: %v", name, err)
		}
	}
}

package models

import (
	"context"
	"errors"
	"testing"
)

// TestASessionEndedByAnotherStoreIsRefusedAtOnce: a second Store on the
// same file is what the CLI's logout-all opens; the next request after it
// is refused, with no verification trusted from before.
func TestASessionEndedByAnotherStoreIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newTestStore(t)
	must(t, s.SetOwnerPassphrase(ctx, "correct horse battery"))
	token, err := s.Login(ctx, "correct horse battery")
	must(t, err)
	if _, err := s.AuthenticateSession(ctx, token); err != nil {
		t.Fatalf("a fresh session: %v", err)
	}

	cli, err := OpenExisting(ctx, s.DataDir(), Options{})
	must(t, err)
	defer cli.Close()
	if _, err := cli.LogoutAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AuthenticateSession(ctx, token); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("after another store's logout-all: %v, want ErrUnauthorized", err)
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
		if _, err := s.AuthenticateSession(ctx, token); !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("%s: the session is still there: %v", name, err)
		}
	}
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"hearth/beeper/beepertest"
)

// cmdFakeBeeper serves the in-memory Beeper Desktop fake, for demos and manual testing.
func cmdFakeBeeper(args []string) error {
	fs := flag.NewFlagSet("fake-beeper", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:23373", "listen address")
	token := fs.String("token", "fake-beeper-token", "access token the fake accepts")
	sendDelay := fs.Duration("send-delay", 0, "hold each send's answer this long after applying it (crash tests)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// A live clock makes the seeded conversations look recent in the demo.
	fake := beepertest.New(*token, beepertest.WithClock(time.Now))
	fake.SetSendDelay(*sendDelay)
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String()
	fmt.Printf("fake Beeper Desktop API at %s\n  BEEPER_BASE_URL=%s\n  BEEPER_ACCESS_TOKEN=%s\n", url, url, *token)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

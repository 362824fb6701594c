package main

// The commands for demos and measurements: seed writes years of simulated
// use, fake-beeper serves the in-memory Beeper Desktop API.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"hearth/beeper/beepertest"
	"hearth/internal/cli"
	"hearth/internal/demo"
	"hearth/models"
)

func cmdSeed(args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	dir := dataFlag(fs)
	years := fs.Float64("years", 0, "years of use to write, ending today (a fraction is fine)")
	days := fs.Int("days", 0, "days of use to write, ending today (instead of --years)")
	seed := fs.Uint64("seed", 19, "the random history's seed: the same seed on the same day is the same history")
	observationDays := fs.Int("observation-days", int(models.DefaultObservationHorizon/(24*time.Hour)), "prune consumed observations older than this many days once a day, as serve does (0 keeps them all)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	n := *days
	if n == 0 {
		n = int(math.Round(*years * demo.YearDays))
	}
	if n <= 0 || (*days != 0 && *years != 0) {
		return cli.UsageError("seed needs --years N or --days N (one of them, positive)")
	}
	if *observationDays < 0 {
		return cli.UsageError("--observation-days must not be negative")
	}
	if err := checkEmptyDir(*dir); err != nil {
		return err
	}
	_, err := demo.SeedYears(context.Background(), os.Stdout, *dir, demo.SeedPlan{Days: n, Seed: *seed, Horizon: time.Duration(*observationDays) * 24 * time.Hour}, time.Now())
	return err
}

// checkEmptyDir refuses a data dir that holds anything: seeding writes a
// whole history and must never mix it into a real one.
func checkEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return cli.UsageError("%s is not empty: hearth seed writes only into a new or empty data dir", dir)
	}
	return nil
}

// cmdFakeBeeper serves the in-memory Beeper Desktop fake, for demos and manual testing.
func cmdFakeBeeper(args []string) error {
	fs := flag.NewFlagSet("fake-beeper", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:23373", "listen address")
	token := fs.String("token", "fake-beeper-token", "access token the fake accepts")
	sendDelay := fs.Duration("send-delay", 0, "hold each send's answer this long after applying it (crash tests)")
	if err := cli.ParseFlags(fs, args); err != nil {
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

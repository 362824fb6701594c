package main

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/internal/cli"
)

func TestCostTiersAreThreeNumbersRisingFromLowToHigh(t *testing.T) {
	got, err := parseCostTiers("1, 1.5,2")
	if err != nil || got != [3]float64{1, 1.5, 2} {
		t.Fatalf("parseCostTiers = %v, %v", got, err)
	}
	for _, bad := range []string{"1,2", "1,x,2", ""} {
		if _, err := parseCostTiers(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// TestServeRefusesAWrongFlagBeforeTouchingTheDataDir: every flag of serve
// is checked before the store opens, so a typo exits 1 and creates or
// changes nothing in the data dir.
func TestServeRefusesAWrongFlagBeforeTouchingTheDataDir(t *testing.T) {
	t.Setenv("HEARTH_HOSTS", "")
	t.Setenv("HEARTH_TEST_NOW", "")
	t.Setenv("HEARTH_TEST_PAUSE_AT", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--owed-after", "0s"}, "--owed-after must be positive"},
		{[]string{"--tailscale-owner", "ana@example.com"}, "--tailscale-owner needs --host NAME"},
		{[]string{"--daily-cost-cap", "-1"}, "--daily-cost-cap must not be negative"},
		{[]string{"--daily-token-cap", "-1"}, "--daily-token-cap must not be negative"},
		{[]string{"--cost-tiers", "1,2"}, "--cost-tiers: want three numbers"},
		{[]string{"--priority", "daily-brief=urgent"}, "urgent"},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		err := cmdServe(append(c.args, "--data", dir, "--addr", "127.0.0.1:0", "--push-subject", "off"))
		var xe *cli.ExitError
		if !errors.As(err, &xe) || xe.Code != cli.ExitRejected || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %v: %v; want a usage error saying %q", c.args, err, c.want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("serve %v: a refused flag touched the data dir (%v)", c.args, err)
		}
	}
}

// TestServeRefusesABusyAddressBeforeOpeningTheStore: serve binds its own
// address first, so a port in use fails at once, leaves the data dir as it
// was, and nothing serve starts later (the demo's fake Beeper takes a free
// port) can be handed the port serve was asked for.
func TestServeRefusesABusyAddressBeforeOpeningTheStore(t *testing.T) {
	t.Setenv("HEARTH_HOSTS", "")
	t.Setenv("HEARTH_TEST_NOW", "")
	t.Setenv("HEARTH_TEST_PAUSE_AT", "")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := filepath.Join(t.TempDir(), "data")
	err = cmdServe([]string{"--demo", "--data", dir, "--addr", busy.Addr().String(), "--push-subject", "off"})
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("serve on a busy address: %v; want address already in use", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hearth.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("serve opened the store before it could listen (%v)", err)
	}
}

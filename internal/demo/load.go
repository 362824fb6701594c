package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"hearth/internal/privatefile"
	"hearth/models"
)

// demoPassphrase is the owner passphrase that --demo sets on a fresh data dir.
const demoPassphrase = "hearth-demo"

func demoTokenPath(dir string) string { return filepath.Join(dir, "agent.token") }

// Load gives an empty data dir a passphrase, an agent credential (token in
// DIR/agent.token, mode 0600) and a fictional publication, through the same
// services the real surfaces use, and eight weeks of fictional history
// (seedDemoHistory). A data dir with data is left alone.
func Load(ctx context.Context, store *models.Store, dir string, clock *Clock) error {
	has, err := store.HasOwner(ctx)
	if err != nil {
		return err
	}
	if !has {
		if err := store.SetOwnerPassphrase(ctx, demoPassphrase); err != nil {
			return err
		}
	}
	if _, err := os.Stat(demoTokenPath(dir)); errors.Is(err, os.ErrNotExist) {
		_, token, err := store.CreateCredential(ctx, "demo-agent", models.DemoScopes)
		if err != nil {
			return err
		}
		if err := privatefile.WriteAtomic(demoTokenPath(dir), []byte(token+"\n")); err != nil {
			return err
		}
	}
	rev, err := store.Revision(ctx)
	if err != nil || rev > 0 {
		return err
	}
	now := clock.Now()
	body, err := demoResult(now, demoZone)
	if err != nil {
		return err
	}
	if _, _, err = publish(ctx, store, "demo", body); err != nil {
		return err
	}
	return seedDemoHistory(ctx, store, clock, now)
}

// Banner is what serve --demo (and so make run) prints: where the demo
// is, its passphrase, and how to open it on a phone, which cannot reach
// the loopback address it listens on by default (docs/operations.md).
func Banner(url string, listen net.Addr, hosts []string, dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nhearth demo is running at %s\n  log in with passphrase: %s\n  agent token file: %s\n  try: HEARTH_URL=%s %s context --credential-file %s\n\n",
		url, demoPassphrase, demoTokenPath(dir), url, os.Args[0], demoTokenPath(dir))
	port := "8080"
	loopback := true
	if tcp, ok := listen.(*net.TCPAddr); ok {
		port = strconv.Itoa(tcp.Port)
		loopback = tcp.IP.IsLoopback()
	}
	var opened []string
	for _, h := range hosts {
		switch {
		case strings.HasSuffix(h, ".ts.net"):
			opened = append(opened, "https://"+h+"  (with tailscale serve running, below)")
		case !loopback:
			opened = append(opened, "http://"+net.JoinHostPort(h, port))
		}
	}
	b.WriteString("On your phone:\n")
	for _, u := range opened {
		fmt.Fprintf(&b, "  open %s\n", u)
	}
	fmt.Fprintf(&b, "  Over Tailscale (HTTPS, works away from home): on this machine run\n"+
		"    tailscale serve --bg --https=443 http://127.0.0.1:%s\n"+
		"  then start the demo with this machine's tailnet name and open it on the phone:\n"+
		"    make run HOSTS=NAME.TAILNET.ts.net   (serve --host NAME.TAILNET.ts.net)\n"+
		"    https://NAME.TAILNET.ts.net\n"+
		"  On the same Wi-Fi instead: make run ADDR=0.0.0.0:%s HOSTS=LAN-ADDRESS, then open\n"+
		"    http://LAN-ADDRESS:%s. Plain HTTP: the passphrase crosses the network unencrypted,\n"+
		"    anyone on that network reaches the login page, and the phone gets no offline copy.\n"+
		"  More in docs/operations.md (systemd and tailscale serve).\n\n", port, port, port)
	return b.String()
}

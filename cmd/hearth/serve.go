package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hearth/beeper"
	"hearth/handlers"
	"hearth/internal/beeperflow"
	"hearth/internal/privatefile"
	"hearth/internal/pushflow"
	"hearth/models"
)

// demoPassphrase is the owner passphrase that --demo sets on a fresh data dir.
const demoPassphrase = "hearth-demo"

func cmdServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", envOr("HEARTH_ADDR", "127.0.0.1:8080"), "listen address (HEARTH_ADDR)")
	dir := dataFlag(fs)
	demo := fs.Bool("demo", false, "load fictional demo data and a demo login into an empty data dir")
	initDB := fs.Bool("init", false, "begin an empty workspace even though the data dir holds hearth state (agent.token, schedules/) beside a missing or empty hearth.db")
	tsOwner := fs.String("tailscale-owner", os.Getenv("HEARTH_TAILSCALE_OWNER"), "trust this Tailscale login from tailscale serve on a --host name (HEARTH_TAILSCALE_OWNER)")
	var hosts hostList
	fs.Var(&hosts, "host", "a host name requests may address besides localhost, 127.0.0.1 and [::1], such as the tailnet name of tailscale serve; repeat or comma-separate (HEARTH_HOSTS)")
	beeperURL := fs.String("beeper-url", beeper.EnvBaseURL(), "Beeper Desktop API base URL (BEEPER_BASE_URL, else the older BEEPER_DESKTOP_BASE_URL); with --demo and none, an in-process fake")
	beeperTokenFile := fs.String("beeper-token-file", "", "file holding the Beeper access token, mode 0600 (else BEEPER_ACCESS_TOKEN)")
	watchInterval := fs.Duration("watch-interval", beeperflow.DefaultWatchInterval, "how often the Beeper watch reads chats with new activity (0 turns the watch off)")
	wakeDebounce := fs.Duration("wake-debounce", beeperflow.DefaultWakeDebounce, "new messages coalesce into one agent wake-up per window")
	watchJob := fs.String("watch-job", beeperflow.DefaultWatchJob, "the job key new Beeper messages make dirty")
	owedAfter := fs.Duration("owed-after", models.OwedAfter, "how long someone else's last message waits before Messages and Home show the reply as owed")
	backupEvery := fs.Duration("backup-every", 0, "make a verified backup this often into --backup-dir (0: none; `hearth backup` from a timer is the other way)")
	backupKeep := fs.Int("backup-keep", 14, "how many of serve's backups to keep in --backup-dir")
	backupDir := fs.String("backup-dir", "", "where serve's backups go (default DATA/backups)")
	observationDays := fs.Int("observation-days", int(models.DefaultObservationHorizon/(24*time.Hour)), "consumed observations older than this many days lose their payloads, once a day (0 keeps them all)")
	costCap := fs.Float64("daily-cost-cap", 0, "USD: scheduled and watch runs wait once the day's reported agent cost reaches it times their priority's tier (0: no cap); runs the owner starts still go")
	tokenCap := fs.Int64("daily-token-cap", 0, "tokens: scheduled and watch runs also wait once the day's reported agent tokens reach it times their priority's tier, for agents whose cost is not known (0: no token cap)")
	pushSubject := fs.String("push-subject", envOr("HEARTH_PUSH_SUBJECT", pushflow.DefaultSubject), "the VAPID contact (mailto: or https:) push services may use to reach you (HEARTH_PUSH_SUBJECT); \"off\" turns Web Push off")
	costTiers := fs.String("cost-tiers", "1,1.5,2", "multiples of --daily-cost-cap (and --daily-token-cap) at which low, normal and high priority runs wait")
	priorities := map[string]string{}
	fs.Func("priority", "JOB=low|normal|high: a job's priority under the cost cap (repeatable; daily-brief is high, others normal)", func(v string) error {
		job, pr, ok := strings.Cut(v, "=")
		if !ok || job == "" {
			return fmt.Errorf("want JOB=low|normal|high, got %q", v)
		}
		priorities[job] = pr
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// Like every flag with an environment variable, --host replaces HEARTH_HOSTS.
	if env := os.Getenv("HEARTH_HOSTS"); env != "" && len(hosts) == 0 {
		if err := hosts.Set(env); err != nil {
			return usageError("HEARTH_HOSTS: %v", err)
		}
	}
	if *owedAfter <= 0 {
		return usageError("--owed-after must be positive, like 24h")
	}
	if *tsOwner != "" && len(hosts) == 0 {
		return usageError("--tailscale-owner needs --host NAME, the name tailscale serve answers on (like hearth.tail1234.ts.net): it forwards that name as Host, and the Tailscale login counts only with it")
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx := context.Background()
	// A damaged database is refused here rather than found by the owner's
	// next look at a damaged table; a file exactly as the last clean
	// shutdown left it is not read again (docs/decisions.md).
	// serve's one clock: the store, and through it every handler and the
	// watch, reads the time from it. Under --demo it stands in the past while
	// the demo writes its history; HEARTH_TEST_NOW moves it.
	clock := &serveClock{}
	offset, err := testNow(log)
	if err != nil {
		return err
	}
	clock.offset = offset
	pause, err := testPause(log)
	if err != nil {
		return err
	}
	store, err := models.Open(ctx, *dir, models.Options{Pause: pause, Init: *initDB, QuickCheck: true, OwedAfter: *owedAfter, Clock: clock.Now})
	if err != nil {
		return err
	}
	defer closeChecked(store, log)
	if store.PagesChecked() {
		log.Info("database checked (quick_check)")
	} else {
		log.Info("database as the last clean shutdown left it: quick_check skipped")
	}
	warnOpenDataDir(*dir, log)
	// Schedule adds and cancels run inside serve's requests: finish any the
	// last stop interrupted, notice a restored backup, check the files.
	rec, err := store.RecoverSchedules(ctx)
	if err != nil {
		return err
	}
	if rec.Completed+rec.RolledBack+rec.Retired > 0 {
		log.Warn("schedule writes interrupted by the last stop were finished", "completed", rec.Completed, "rolledBack", rec.RolledBack, "retired", rec.Retired)
	}
	if !rec.RestoredFrom.IsZero() {
		log.Warn("running on a restored backup: schedules wait for the owner on the Schedules page", "takenAt", rec.RestoredFrom, "restorePending", rec.Restored)
	}
	if len(rec.NotRetired) > 0 {
		log.Warn("cancelled schedules whose definition file could not be moved to retired/; the Schedules page says why", "schedules", strings.Join(rec.NotRetired, ","))
	}
	if len(rec.Unfinished) > 0 {
		log.Warn("schedule adds interrupted by the last stop could not be completed; they are quarantined on the Schedules page", "schedules", strings.Join(rec.Unfinished, ","))
	}
	if len(rec.Quarantined) > 0 {
		log.Warn("schedules whose definition file changed outside hearth, or whose approved definition no longer reads, are quarantined", "schedules", strings.Join(rec.Quarantined, ","))
	}
	// Sends run inside serve's requests: one still pending now was cut off
	// between the Beeper call and its outcome, so it is unknown until reconciled.
	if n, err := store.RecoverInterruptedSends(ctx); err != nil {
		return err
	} else if n > 0 {
		log.Warn("sends interrupted by the last stop are now unknown; reconcile them in Messages", "count", n)
	}
	if *demo {
		if err := loadDemo(ctx, store, *dir, clock); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	client, err := beeperClient(*beeperURL, *beeperTokenFile, *demo, clock.Now, log)
	if err != nil {
		return err
	}
	hub := handlers.NewHub()
	var sender *pushflow.Sender
	var pushKey string
	if *pushSubject != "off" {
		keys, err := pushflow.LoadKeys(*dir)
		if err != nil {
			return err
		}
		pushKey = keys.Public
		sender = pushflow.New(store, keys, pushflow.Options{Subject: *pushSubject, Log: log})
		store.SetNotifier(notifiers{hub, sender})
	} else {
		store.SetNotifier(hub)
	}
	if *costCap < 0 {
		return usageError("--daily-cost-cap must not be negative")
	}
	if *tokenCap < 0 {
		return usageError("--daily-token-cap must not be negative")
	}
	tiers, err := parseCostTiers(*costTiers)
	if err != nil {
		return usageError("--cost-tiers: %v", err)
	}
	if err := (models.CostPolicy{Tiers: tiers, Jobs: priorities}).Check(); err != nil {
		return usageError("%v", err)
	}
	cfg := handlers.Config{TailscaleOwner: *tsOwner, Hosts: hosts, Log: log, Hub: hub, DailyCostCap: *costCap, DailyTokenCap: *tokenCap, CostTiers: tiers, JobPriorities: priorities, PushPublicKey: pushKey}
	if client != nil {
		cfg.Beeper = client
	}
	app := handlers.New(store, cfg)
	// The watch writes to the store: it is stopped and waited for before
	// the store closes, like the tickers below.
	background, stopBackground := context.WithCancel(ctx)
	watched := make(chan struct{})
	defer func() {
		stopBackground()
		<-watched
	}()
	if client != nil && *watchInterval > 0 {
		watch := beeperflow.NewWatch(store, client, beeperflow.WatchOptions{Interval: *watchInterval, Debounce: *wakeDebounce, Job: *watchJob, Log: log})
		go func() {
			defer close(watched)
			watch.Run(background)
		}()
	} else {
		close(watched)
	}
	// Today's routine occurrences exist at midnight even with no page open;
	// stopped before the store closes.
	tickCtx, stopTicker := context.WithCancel(ctx)
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		ensureOnce(tickCtx, store, log)
		// Counting a year of routines takes a while the first time; after
		// this, a Routines page recounts only what commits change.
		if _, err := store.Routines(tickCtx); err != nil && tickCtx.Err() == nil {
			log.Warn("routine counts not warmed", "err", err)
		}
		ensureOccurrencesEvery(tickCtx, store, time.Minute, log)
	}()
	// Notifications are sent in the background, after the commits that
	// made them, never inside a request's transaction.
	pushed := make(chan struct{})
	go func() {
		defer close(pushed)
		if sender != nil {
			sender.Run(tickCtx)
		}
	}()
	pruned := make(chan struct{})
	go func() {
		defer close(pruned)
		maintainEvery(tickCtx, store, time.Duration(*observationDays)*24*time.Hour, 24*time.Hour, log)
	}()
	backedUp := make(chan struct{})
	go func() {
		defer close(backedUp)
		if *backupEvery > 0 {
			backupEveryInterval(tickCtx, store, cmp.Or(*backupDir, filepath.Join(*dir, "backups")), *backupKeep, *backupEvery, log)
		}
	}()
	defer func() {
		stopTicker()
		<-ticked
		<-pushed
		<-pruned
		<-backedUp
	}()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	log.Info("hearth listening", "url", url, "database", store.Path())
	if *demo {
		fmt.Print(demoBanner(url, ln.Addr(), hosts, *dir))
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	served := make(chan error, 1)
	go func() { served <- app.Listener(ln) }()
	select {
	case err := <-served:
		return err
	case sig := <-stop:
		log.Info("shutting down", "signal", sig.String())
	}
	// Ending the event streams first lets their handlers return, so shutdown
	// only waits for in-flight requests.
	stopBackground()
	hub.Close()
	if err := app.ShutdownWithTimeout(10 * time.Second); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// closeChecked closes serve's store, which checks every page before it
// records a clean stop; a failed check leaves no record, so the next start
// checks again and refuses a damaged file.
func closeChecked(store *models.Store, log *slog.Logger) {
	start := time.Now()
	if err := store.Close(); err != nil {
		log.Error("database closed without a clean-stop record: the next start checks every page", "err", err)
		return
	}
	log.Info("database closed and checked (quick_check)", "took", time.Since(start).Round(time.Millisecond))
}

// testPause is the test-only hook of HEARTH_TEST_PAUSE_AT=POINT (a
// models.Pause* name): at that point of a schedule add or cancel, or of a
// schedule run's start, serve logs "paused at POINT" and blocks that
// request forever, so the e2e crash tests can SIGKILL it there.
// Unset, it is nil; set in a binary not built for tests, it is refused.
func testPause(log *slog.Logger) (func(string), error) {
	at := os.Getenv("HEARTH_TEST_PAUSE_AT")
	if at == "" {
		return nil, nil
	}
	if err := testHook("HEARTH_TEST_PAUSE_AT"); err != nil {
		return nil, err
	}
	log.Warn("HEARTH_TEST_PAUSE_AT is set: schedule writes will block (test only)", "point", at)
	return func(point string) {
		if point == at {
			log.Warn("paused at " + point)
			select {}
		}
	}, nil
}

// testNow is the test-only hook of HEARTH_TEST_NOW=RFC3339: serve's clock
// starts at that instant and runs on from it, so the date-sensitive e2e
// tests see every weekday and DST change day on any day they run. Unset,
// it is zero; set in a binary not built for tests, it is refused.
func testNow(log *slog.Logger) (time.Duration, error) {
	at := os.Getenv("HEARTH_TEST_NOW")
	if at == "" {
		return 0, nil
	}
	if err := testHook("HEARTH_TEST_NOW"); err != nil {
		return 0, err
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return 0, usageError("HEARTH_TEST_NOW: %v", err)
	}
	log.Warn("HEARTH_TEST_NOW is set: the clock is moved (test only)", "now", at)
	return time.Until(t), nil
}

// testHook refuses a test hook's variable unless this binary was built for
// tests: an owner's server must not run on a moved clock or block its
// writes because a variable was left set.
func testHook(name string) error {
	if testBuild {
		return nil
	}
	return usageError("%s is a test hook: this hearth was not built for tests (go build -tags hearthtest); unset it", name)
}

func demoTokenPath(dir string) string { return filepath.Join(dir, "agent.token") }

// warnOpenDataDir warns when group or others may list, enter or change the
// data dir. hearth keeps its own files there owner-only, but a dir others
// may write to lets them replace those files.
func warnOpenDataDir(dir string, log *slog.Logger) {
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	log.Warn("the data dir is open to group or others; hearth's own files in it are owner-only, but run chmod 700 on it",
		"dir", dir, "mode", fi.Mode().Perm().String())
}

// maintainEvery keeps the database in shape now and then every interval
// until ctx ends: it drops old consumed observations' payloads (unless
// horizon is 0, which keeps them all) and refreshes the planner's
// statistics. A failure is logged and tried at the next tick.
func maintainEvery(ctx context.Context, store *models.Store, horizon, every time.Duration, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if horizon > 0 {
			rep, err := store.PruneObservations(ctx, horizon)
			switch {
			case err != nil && ctx.Err() == nil:
				log.Error("prune observations", "err", err)
			case rep.Deleted+rep.Emptied > 0:
				log.Info("pruned observations", "deleted", rep.Deleted, "emptied", rep.Emptied, "freedBytes", rep.FreedBytes)
			}
		}
		if err := store.Optimize(ctx); err != nil && ctx.Err() == nil {
			log.Error("optimize", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// backupEveryInterval makes a verified backup every interval until ctx
// ends; the first is due an interval after the newest drill (at once when
// there is none), so a restart neither skips one nor takes an extra one. A
// failed backup is recorded by the store (Home says so), logged, and tried
// again an interval later.
func backupEveryInterval(ctx context.Context, store *models.Store, dir string, keep int, every time.Duration, log *slog.Logger) {
	wait := time.Duration(0)
	if last, ok, err := store.LastBackupDrill(ctx); err != nil {
		log.Error("backup schedule", "err", err)
	} else if ok {
		wait = time.Until(last.FinishedAt.Add(every))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(max(wait, 0)):
		}
		if d, err := store.BackupInto(ctx, dir, keep); err != nil {
			if ctx.Err() == nil {
				log.Error("backup", "err", err)
			}
		} else {
			log.Info("verified backup", "path", d.Path, "bytes", d.Bytes, "receipts", d.Receipts)
		}
		wait = every
	}
}

// occurrenceEnsurer is the part of the store the ticker calls.
type occurrenceEnsurer interface {
	EnsureOccurrences(ctx context.Context) (int, error)
}

// ensureOccurrencesEvery instantiates today's routine occurrences every
// interval until ctx ends (serve has just done so once before it starts). A failure (or a panic) is logged and
// tried again at the next tick; it never stops serve.
func ensureOccurrencesEvery(ctx context.Context, store occurrenceEnsurer, every time.Duration, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		ensureOnce(ctx, store, log)
	}
}

func ensureOnce(ctx context.Context, store occurrenceEnsurer, log *slog.Logger) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("ensure occurrences panicked", "panic", fmt.Sprint(r))
		}
	}()
	n, err := store.EnsureOccurrences(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		log.Error("ensure occurrences", "err", err)
	case n > 0:
		log.Info("routine occurrences instantiated", "count", n)
	}
}

// loadDemo gives an empty data dir a passphrase, an agent credential (token in
// DIR/agent.token, mode 0600) and a fictional publication, through the same
// services the real surfaces use, and eight weeks of fictional history
// (seedDemoHistory). A data dir with data is left alone.
func loadDemo(ctx context.Context, store *models.Store, dir string, clock *serveClock) error {
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

// beeperClient connects to the configured Beeper Desktop API; in demo mode
// without one it starts the fake on a free loopback port, on serve's clock. No URL and no demo
// leaves Messages off.
func beeperClient(baseURL, tokenFile string, demo bool, now func() time.Time, log *slog.Logger) (*beeper.Client, error) {
	if baseURL == "" && demo {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		const token = "fake-beeper-token"
		go http.Serve(ln, demoBeeper(token, now))
		baseURL = "http://" + ln.Addr().String()
		log.Info("demo Beeper (fake) listening", "url", baseURL)
		return beeper.NewClient(baseURL, token), nil
	}
	if baseURL == "" {
		return nil, nil
	}
	token := os.Getenv("BEEPER_ACCESS_TOKEN")
	if tokenFile != "" {
		t, err := beeper.ReadTokenFile(tokenFile)
		if err != nil {
			return nil, err
		}
		token = t
	}
	if token == "" {
		return nil, errors.New("--beeper-url needs a token: --beeper-token-file or BEEPER_ACCESS_TOKEN")
	}
	return beeper.NewClient(baseURL, token), nil
}

// hostList is serve's --host: names given repeatedly or comma-separated,
// each checked and normalised by handlers.HostName. Loopback names need no
// flag: they are always allowed.
type hostList []string

// String is the names, comma-separated.
func (h *hostList) String() string { return strings.Join(*h, ",") }

// Set adds the comma-separated names in v.
func (h *hostList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		name, err := handlers.HostName(part)
		if err != nil {
			return err
		}
		*h = append(*h, name)
	}
	return nil
}

// parseCostTiers reads "1,1.5,2": the multiples of the cap for low, normal
// and high priority.
func parseCostTiers(v string) ([3]float64, error) {
	var tiers [3]float64
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return tiers, fmt.Errorf("want three numbers for low,normal,high, got %q", v)
	}
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return tiers, fmt.Errorf("%q is not a number", p)
		}
		tiers[i] = f
	}
	return tiers, nil
}

// demoBanner is what serve --demo (and so make run) prints: where the demo
// is, its passphrase, and how to open it on a phone, which cannot reach
// the loopback address it listens on by default (docs/operations.md).
func demoBanner(url string, listen net.Addr, hosts []string, dir string) string {
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

// notifiers tells each of its listeners of a commit, in order: the SSE hub,
// then the push sender (which only wakes its own goroutine).
type notifiers []models.Notifier

// Committed implements models.Notifier.
func (ns notifiers) Committed(revision int64, changed []string) {
	for _, n := range ns {
		n.Committed(revision, changed)
	}
}

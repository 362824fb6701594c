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
	"sync"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/beeper"
	"hearth/handlers"
	"hearth/internal/beeperflow"
	"hearth/internal/cli"
	"hearth/internal/costpolicy"
	"hearth/internal/demo"
	"hearth/internal/pushflow"
	"hearth/internal/upkeep"
	"hearth/models"
	"hearth/models/read"
)

// cmdServe is `hearth serve`: parse and check its flags, build the store,
// the app and everything else that can fail before anything runs, then run
// until SIGTERM or SIGINT.
func cmdServe(args []string) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := parseServe(args, log)
	if err != nil {
		return err
	}
	srv, err := buildServer(context.Background(), cfg, log)
	if err != nil {
		return err
	}
	defer srv.close()
	// Signals are caught only from here, just before serve listens: a stop
	// while the store opens or the demo is written ends hearth at once, and
	// the next start checks the file.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return srv.run(ctx)
}

// serveConfig is serve's flags and test hooks, parsed and checked before
// anything is opened.
type serveConfig struct {
	addr, dir string
	demo      bool
	store     models.Options  // Init, OwedAfter, the test pause; build adds the clock
	offset    time.Duration   // HEARTH_TEST_NOW's move of the clock
	app       handlers.Config // names, the Tailscale owner, the cost cap; build adds the rest
	watch     beeperflow.WatchOptions

	beeperURL, beeperTokenFile string
	pushSubject                string
	backupEvery                time.Duration
	backupKeep                 int
	backupDir                  string
	observationHorizon         time.Duration // 0 keeps them all
}

// parseServe reads serve's flags, HEARTH_HOSTS and the test hooks, and
// refuses a wrong one as a usage error (exit 1).
func parseServe(args []string, log *slog.Logger) (serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", cli.EnvOr("HEARTH_ADDR", "127.0.0.1:8080"), "listen address (HEARTH_ADDR)")
	dir := dataFlag(fs)
	withDemo := fs.Bool("demo", false, "load fictional demo data and a demo login into an empty data dir")
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
	pushSubject := fs.String("push-subject", cli.EnvOr("HEARTH_PUSH_SUBJECT", pushflow.DefaultSubject), "the VAPID contact (mailto: or https:) push services may use to reach you (HEARTH_PUSH_SUBJECT); \"off\" turns Web Push off")
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
	if err := cli.ParseFlags(fs, args); err != nil {
		return serveConfig{}, err
	}
	// Like every flag with an environment variable, --host replaces HEARTH_HOSTS.
	if env := os.Getenv("HEARTH_HOSTS"); env != "" && len(hosts) == 0 {
		if err := hosts.Set(env); err != nil {
			return serveConfig{}, cli.UsageError("HEARTH_HOSTS: %v", err)
		}
	}
	if *owedAfter <= 0 {
		return serveConfig{}, cli.UsageError("--owed-after must be positive, like 24h")
	}
	if *tsOwner != "" && len(hosts) == 0 {
		return serveConfig{}, cli.UsageError("--tailscale-owner needs --host NAME, the name tailscale serve answers on (like hearth.tail1234.ts.net): it forwards that name as Host, and the Tailscale login counts only with it")
	}
	if *costCap < 0 {
		return serveConfig{}, cli.UsageError("--daily-cost-cap must not be negative")
	}
	if *tokenCap < 0 {
		return serveConfig{}, cli.UsageError("--daily-token-cap must not be negative")
	}
	tiers, err := parseCostTiers(*costTiers)
	if err != nil {
		return serveConfig{}, cli.UsageError("--cost-tiers: %v", err)
	}
	if err := (costpolicy.Policy{Tiers: tiers, Jobs: priorities}).Check(); err != nil {
		return serveConfig{}, cli.UsageError("%v", err)
	}
	offset, err := testNow(log)
	if err != nil {
		return serveConfig{}, err
	}
	pause, err := testPause(log)
	if err != nil {
		return serveConfig{}, err
	}
	return serveConfig{
		addr: *addr, dir: *dir, demo: *withDemo, offset: offset,
		// A damaged database is refused at the start rather than found by
		// the owner's next look at a damaged table; a file exactly as the
		// last clean shutdown left it is not read again (docs/decisions.md).
		store: models.Options{Pause: pause, Init: *initDB, QuickCheck: true, OwedAfter: *owedAfter},
		app: handlers.Config{TailscaleOwner: *tsOwner, Hosts: hosts, DailyCostCap: *costCap, DailyTokenCap: *tokenCap,
			CostTiers: tiers, JobPriorities: priorities},
		watch:     beeperflow.WatchOptions{Interval: *watchInterval, Debounce: *wakeDebounce, Job: *watchJob, Log: log},
		beeperURL: *beeperURL, beeperTokenFile: *beeperTokenFile, pushSubject: *pushSubject,
		backupEvery: *backupEvery, backupKeep: *backupKeep, backupDir: cmp.Or(*backupDir, filepath.Join(*dir, "backups")),
		observationHorizon: time.Duration(*observationDays) * 24 * time.Hour,
	}, nil
}

// server is what serve built: the store and everything that reads or
// writes it while serve runs.
type server struct {
	cfg    serveConfig
	log    *slog.Logger
	store  *models.Store
	hub    *handlers.Hub
	app    *fiber.App
	ln     net.Listener
	beeper *beeper.Client   // nil: Messages and the watch are off
	sender *pushflow.Sender // nil: Web Push is off
}

// buildServer opens the store on serve's one clock, finishes the writes
// the last stop interrupted, loads the demo, and builds the app on its
// listener, bound first; on an error it closes what it opened.
func buildServer(ctx context.Context, cfg serveConfig, log *slog.Logger) (_ *server, err error) {
	// serve's one clock: the store, and through it every handler and the
	// watch, reads the time from it. Under --demo it stands in the past while
	// the demo writes its history; HEARTH_TEST_NOW moves it.
	clock := &demo.Clock{Offset: cfg.offset}
	// hearth's own address is bound first: a port in use fails before the
	// store opens, and nothing started later (the demo's fake Beeper takes
	// a free port) can be handed the port serve was asked for.
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			ln.Close()
		}
	}()
	opts := cfg.store
	opts.Clock = clock.Now
	store, err := models.Open(ctx, cfg.dir, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			closeChecked(store, log)
		}
	}()
	if store.PagesChecked() {
		log.Info("database checked (quick_check)")
	} else {
		log.Info("database as the last clean shutdown left it: quick_check skipped")
	}
	warnOpenDataDir(cfg.dir, log)
	if err := recoverWrites(ctx, store, log); err != nil {
		return nil, err
	}
	if cfg.demo {
		if err := demo.Load(ctx, store, cfg.dir, clock); err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	s := &server{cfg: cfg, log: log, store: store, hub: handlers.NewHub()}
	if s.beeper, err = beeperClient(cfg.beeperURL, cfg.beeperTokenFile, cfg.demo, clock.Now, log); err != nil {
		return nil, err
	}
	appCfg := cfg.app
	appCfg.Log, appCfg.Hub = log, s.hub
	if s.beeper != nil {
		appCfg.Beeper = s.beeper
	}
	if cfg.pushSubject != "off" {
		keys, err := pushflow.LoadKeys(cfg.dir)
		if err != nil {
			return nil, err
		}
		appCfg.PushPublicKey = keys.Public
		s.sender = pushflow.New(store, keys, pushflow.Options{Subject: cfg.pushSubject, Log: log})
		store.SetNotifier(notifiers{s.hub, s.sender})
	} else {
		store.SetNotifier(s.hub)
	}
	s.app = handlers.New(store, appCfg)
	s.ln = ln
	return s, nil
}

// recoverWrites finishes what the last stop interrupted inside serve's
// requests, and says so in the log.
func recoverWrites(ctx context.Context, store *models.Store, log *slog.Logger) error {
	// Schedule adds and cancels: finish any the last stop interrupted,
	// notice a restored backup, check the files.
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
	// Sends: one still pending now was cut off between the Beeper call and
	// its outcome, so it is unknown until reconciled.
	if n, err := store.RecoverInterruptedSends(ctx); err != nil {
		return err
	} else if n > 0 {
		log.Warn("sends interrupted by the last stop are now unknown; reconcile them in Messages", "count", n)
	}
	return nil
}

// run serves until ctx ends or the listener fails. The watch stops with
// ctx; the event streams end next, so shutdown waits only for in-flight
// requests; the tickers, which those requests' commits may still wake,
// stop last. Everything that writes to the store has returned when run
// does, before close.
func (s *server) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	// The tickers outlive the signal until the app has shut down.
	tickCtx, stopTickers := context.WithCancel(context.WithoutCancel(ctx))
	var watch, tickers sync.WaitGroup
	defer func() {
		cancel()
		stopTickers()
		tickers.Wait()
		watch.Wait()
	}()
	if s.beeper != nil && s.cfg.watch.Interval > 0 {
		w := beeperflow.NewWatch(s.store, s.beeper, s.cfg.watch)
		watch.Go(func() { w.Run(ctx) })
	}
	s.startTickers(tickCtx, &tickers)
	url := "http://" + s.ln.Addr().String()
	s.log.Info("hearth listening", "url", url, "database", s.store.Path())
	if s.cfg.demo {
		fmt.Print(demo.Banner(url, s.ln.Addr(), s.cfg.app.Hosts, s.cfg.dir))
	}
	served := make(chan error, 1)
	go func() { served <- s.app.Listener(s.ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		s.log.Info("shutting down", "signal", context.Cause(ctx))
	}
	s.hub.Close()
	if err := s.app.ShutdownWithTimeout(10 * time.Second); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// startTickers starts serve's background work on the store, each until
// ctx ends.
func (s *server) startTickers(ctx context.Context, wg *sync.WaitGroup) {
	// Today's routine occurrences exist at midnight even with no page open.
	wg.Go(func() {
		upkeep.EnsureOnce(ctx, s.store, s.log)
		// Counting a year of routines takes a while the first time; after
		// this, a Routines page recounts only what commits change.
		if _, err := read.Of(s.store).Routines(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("routine counts not warmed", "err", err)
		}
		upkeep.EnsureOccurrencesEvery(ctx, s.store, time.Minute, s.log)
	})
	// Notifications are sent in the background, after the commits that
	// made them, never inside a request's transaction.
	if s.sender != nil {
		wg.Go(func() { s.sender.Run(ctx) })
	}
	wg.Go(func() { upkeep.MaintainEvery(ctx, s.store, s.cfg.observationHorizon, 24*time.Hour, s.log) })
	if s.cfg.backupEvery > 0 {
		wg.Go(func() {
			upkeep.BackupEveryInterval(ctx, s.store, s.cfg.backupDir, s.cfg.backupKeep, s.cfg.backupEvery, s.log)
		})
	}
}

// close closes the store once nothing uses it: last, after run.
func (s *server) close() { closeChecked(s.store, s.log) }

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
		return 0, cli.UsageError("HEARTH_TEST_NOW: %v", err)
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
	return cli.UsageError("%s is a test hook: this hearth was not built for tests (go build -tags hearthtest); unset it", name)
}

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

// beeperClient connects to the configured Beeper Desktop API; in demo mode
// without one it starts the fake on a free loopback port, on serve's clock. No URL and no demo
// leaves Messages off.
func beeperClient(baseURL, tokenFile string, withDemo bool, now func() time.Time, log *slog.Logger) (*beeper.Client, error) {
	if baseURL == "" && withDemo {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		const token = "fake-beeper-token"
		go http.Serve(ln, demo.Beeper(token, now))
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

// notifiers tells each of its listeners of a commit, in order: the SSE hub,
// then the push sender (which only wakes its own goroutine).
type notifiers []models.Notifier

// Committed implements models.Notifier.
func (ns notifiers) Committed(revision int64, changed []string) {
	for _, n := range ns {
		n.Committed(revision, changed)
	}
}

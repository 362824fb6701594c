// Package handlers is hearth's Fiber app: routes, middleware, the owner's
// HTML pages and the agent's JSON API. Handlers parse, authorize, call one
// models service and render; each area's handlers hold only the narrow
// store interface they call, and every HTML answer goes through render.
package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/models"
	"hearth/models/read"
	"hearth/views"
)

// clock is what most pages read besides their own data: the time, and the
// revision a page was read at (so a later commit reloads it).
type clock interface {
	LatestRevision() int64
	Now() time.Time
}

// pinger is what the health check asks of the store.
type pinger interface {
	Ping(ctx context.Context) error
}

// stores is each area's narrow view of the store. New gives every area the
// same *models.Store; a test may build the app with a fake for one area
// (and nothing for areas it never reaches).
type stores struct {
	health       pinger
	identity     identityStore
	events       eventsStore
	pages        pagesStore
	home         homeStore
	messages     messagesStore
	requests     requestsStore
	agent        agentStore
	wake         wakeStore
	observations observationsStore
	schedules    schedulesStore
	runs         runsStore
	routines     routinesStore
	weight       weightStore
	push         pushStore
	mine         mineStore
}

// Config holds what the app needs besides the store.
type Config struct {
	// TailscaleOwner, when set, is the Tailscale login trusted as the owner
	// on requests whose TCP peer is loopback and whose Host is one of Hosts
	// (as from tailscale serve, which forwards the name it answered on).
	TailscaleOwner string
	// Hosts are the names requests may address besides localhost and
	// loopback addresses (always allowed), such as the tailnet name
	// tailscale serve answers on; any other Host gets 421.
	Hosts []string
	// Log receives one line per request; nil discards.
	Log *slog.Logger
	// Hub streams commits to /events; nil disables /events.
	Hub *Hub
	// Heartbeat is the interval of /events comment lines (default 25 s).
	Heartbeat time.Duration
	// SessionRecheck is how often an open /events stream re-reads its
	// session, to end when another process (the CLI's logout-all or
	// passwd) ended it; default SessionRecheck. A logout in this
	// process ends the stream at once.
	SessionRecheck time.Duration
	// Beeper reads chats and sends confirmed replies; nil leaves Messages
	// answering 503.
	Beeper Beeper
	// DailyCostCap holds scheduled and watch runs once the day's reported
	// agent cost reached it (USD) times their priority's tier; 0 means no
	// cap. Runs the owner starts still go.
	DailyCostCap float64
	// DailyTokenCap holds them the same way once the day's reported
	// tokens reached it times their tier, for agents whose cost is not
	// known; 0 means no token cap.
	DailyTokenCap int64
	// CostTiers are the multiples of the cap at which low, normal and high
	// priority runs wait; zero means costpolicy.DefaultTiers.
	CostTiers [3]float64
	// JobPriorities set jobs' priorities (low, normal, high); others are
	// costpolicy.DefaultJobPriorities', else normal.
	JobPriorities map[string]string
	// PushPublicKey is the VAPID public key phones subscribe with; ""
	// leaves notifications off (More says so, subscribing answers 503).
	PushPublicKey string
}

// costs is the cost policy the caps, tiers and priorities make.
func (cfg Config) costs() costpolicy.Policy {
	return costpolicy.Policy{Cap: cfg.DailyCostCap, TokenCap: cfg.DailyTokenCap, Tiers: cfg.CostTiers, Jobs: cfg.JobPriorities}
}

// Server holds what every area's handlers share: the configuration, the
// log, the normalised hosts and the render caches. It holds no store: each
// area's handlers (homeHandlers, messagesHandlers, …) embed it beside the
// narrow store interface they call.
type Server struct {
	cfg   Config
	log   *slog.Logger
	hub   *Hub
	hosts map[string]bool // Config.Hosts, normalised
	pages *fifoCache[cachedPage]
	// answers are page-level POSTs' answers, for the GET after their 303.
	answers *answers
}

// healthHandlers answer the health check.
type healthHandlers struct {
	store pinger
}

// maxRequestBytes is fasthttp's hard ceiling on any request body. It is above
// contract.MaxBodyBytes on purpose: fasthttp refuses a body over its limit by
// closing the connection with the body unread, so a real client mostly sees
// a connection reset rather than the 413. Up to this ceiling the body is read
// and publishResult answers 413 itself, after authentication.
const maxRequestBytes = 2 * contract.MaxBodyBytes

// New builds the Fiber app with every route, each area's handlers calling
// store through the narrow interface they declare.
func New(store *models.Store, cfg Config) *fiber.App {
	return newApp(storesOf(store), cfg)
}

// storesOf gives every area the one store, with its read models.
func storesOf(s *models.Store) stores {
	store := read.Of(s)
	return stores{health: store, identity: store, events: store, pages: store, home: store, messages: store,
		requests: store, agent: store, wake: store, observations: store, schedules: store, runs: store, routines: store, weight: store, push: store, mine: store}
}

// newApp is New over each area's store.
func newApp(st stores, cfg Config) *fiber.App {
	return newAppCaches(st, cfg, caches{pages: newFIFOCache[cachedPage](pageCacheSize), contexts: newFIFOCache[[]byte](2)})
}

// caches are the app's render caches; a nil one keeps nothing (a
// benchmark's app without it).
type caches struct {
	pages    *fifoCache[cachedPage]
	contexts *fifoCache[[]byte]
}

// newAppCaches is newApp with the given caches.
func newAppCaches(st stores, cfg Config, kept caches) *fiber.App {
	s := &Server{cfg: cfg, log: cfg.Log, hub: cfg.Hub, hosts: hostSet(cfg.Hosts), pages: kept.pages, answers: newAnswers()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	health := &healthHandlers{store: st.health}
	who := &identityHandlers{Server: s, store: st.identity}
	events := &eventsHandlers{Server: s, store: st.events}
	pages := &pagesHandlers{Server: s, store: st.pages}
	home := &homeHandlers{Server: s, store: st.home}
	msgs := &messagesHandlers{Server: s, store: st.messages}
	requests := &requestsHandlers{Server: s, store: st.requests, home: home, messages: msgs}
	agentAPI := &agentHandlers{Server: s, store: st.agent, contexts: kept.contexts}
	wake := &wakeHandlers{Server: s, store: st.wake}
	observations := &observationsHandlers{Server: s, store: st.observations}
	schedules := &schedulesHandlers{Server: s, store: st.schedules}
	runs := &runsHandlers{Server: s, store: st.runs}
	routines := &routinesHandlers{Server: s, store: st.routines, home: home}
	weight := &weightHandlers{Server: s, store: st.weight, home: home}
	push := &pushHandlers{Server: s, store: st.push}
	mine := &mineHandlers{home: home, store: st.mine}
	app := fiber.New(fiber.Config{
		AppName:               "hearth",
		BodyLimit:             maxRequestBytes,
		DisableStartupMessage: true,
		ErrorHandler:          s.handleError,
		ReadTimeout:           30 * time.Second,
		IdleTimeout:           2 * time.Minute,
	})
	// The Host check comes before identify, so a misdirected request never
	// reaches the database or an identity.
	app.Use(s.requestID, s.logRequest, securityHeaders, cacheControl, s.checkHost, compressOthers(), who.identify)

	app.Get("/healthz", health.health)
	app.Get("/static/:name", serveStatic)
	app.Get("/sw.js", serveServiceWorker)

	app.Get("/login", pages.showLogin)
	app.Post("/login", s.crossOriginProtection, s.loginLimiter(), pages.login)

	// Owner routes list their guards per route: a Group with an empty prefix
	// would guard every path, the agent API included.
	owner := func(h ...fiber.Handler) []fiber.Handler {
		return append([]fiber.Handler{s.requireOwner, s.crossOriginProtection}, h...)
	}
	app.Post("/logout", owner(pages.logout)...)
	app.Get("/", owner(home.showHome)...)
	app.Get("/home/live", owner(home.showLive)...)
	app.Get("/people", owner(home.showPeople)...)
	app.Get("/more", owner(push.showMore)...)
	app.Post("/more/quiet-hours", owner(push.saveQuietHours)...)
	app.Post("/api/push-subscriptions", owner(push.subscribe)...)
	app.Post("/api/push-subscriptions/remove", owner(push.unsubscribe)...)
	app.Get("/weight", owner(weight.showWeight)...)
	app.Post("/weight/goal", owner(weight.saveWeightGoal)...)
	app.Post("/weight/entries", owner(weight.saveWeighIn)...)
	app.Post("/weight/import", owner(weight.importWeights)...)
	app.Get("/weight/import/:answer", owner(weight.showImport)...)
	app.Get("/answers/:answer", owner(s.showAnswer)...)
	app.Get("/export/:file", owner(weight.exportFile)...)
	app.Get("/messages", owner(msgs.needBeeper, msgs.showMessages)...)
	app.Get("/messages/:chat", owner(msgs.needBeeper, msgs.showConversation)...)
	app.Get("/messages/:chat/review", owner(msgs.needBeeper, msgs.reviewSaved)...)
	app.Post("/messages/:chat/review", owner(msgs.needBeeper, msgs.review)...)
	app.Post("/messages/:chat/hand-off", owner(msgs.needBeeper, msgs.handOff)...)
	app.Post("/messages/:chat/no-reply-needed", owner(msgs.decideNoReply)...)
	app.Post("/messages/:chat/remind", owner(msgs.remindLater)...)
	app.Post("/messages/:chat/send", owner(msgs.needBeeper, msgs.confirmSend)...)
	app.Post("/messages/:chat/send-later", owner(msgs.needBeeper, msgs.scheduleSend)...)
	app.Post("/messages/:chat/send-later/cancel", owner(msgs.cancelScheduledSend)...)
	app.Get("/messages/:chat/sends/:key", owner(msgs.needBeeper, msgs.showSend)...)
	app.Post("/messages/:chat/reconcile", owner(msgs.needBeeper, msgs.reconcileSend)...)
	app.Post("/messages/:chat/not-sent", owner(msgs.needBeeper, msgs.markNotSent)...)
	app.Get("/events", owner(events.streamEvents)...)
	app.Get("/activities/:id", owner(home.showRow)...)
	app.Post("/activities/:id/state", owner(home.setActivityState)...)
	app.Post("/activities/:id/measurement", owner(home.saveMeasurement)...)
	app.Post("/activities/:id/bring-back", owner(home.bringBack)...)
	app.Post("/decisions/:id/undo", owner(home.undoDecision)...)
	app.Post("/mine", owner(mine.addOwnerItem)...)
	app.Post("/mine/:id/done", owner(mine.tickOwnerItem)...)
	app.Post("/mine/:id/edit", owner(mine.editOwnerItem)...)
	app.Post("/mine/:id/remove", owner(mine.removeOwnerItem)...)
	app.Post("/drafts/:id/edit", owner(home.saveDraftEdit)...)
	app.Post("/waiting/later", owner(home.setAside)...)
	app.Get("/routines", owner(routines.showRoutines)...)
	// The fixed second segments come before /routines/:id/..., which would also match them.
	app.Post("/routines/events/:event", owner(routines.triggerEvent)...)
	app.Post("/routines/occurrences/:occurrence/feedback", owner(routines.recordFeedback)...)
	app.Post("/routines/trials/:trial/end", owner(routines.endTrial)...)
	app.Post("/routines/trials/:trial/extend", owner(routines.extendTrial)...)
	app.Post("/routines/reviews/:review/proposals/:proposal", owner(routines.decideProposal)...)
	app.Post("/routines/:id/trials", owner(routines.startTrial)...)
	app.Post("/routines/:id/outcomes", owner(routines.recordPastOutcome)...)

	// Owner routes under /api are registered before the agent group, whose
	// guard would otherwise answer them first.
	app.Post("/api/agent-requests", owner(requests.createRequest)...)
	app.Post("/requests", owner(requests.submitRequest)...)
	app.Post("/requests/:id/cancel", owner(requests.cancelRequestForm)...)
	app.Post("/api/agent-requests/:id/cancel", owner(requests.cancelRequest)...)

	// The contract's JSON Schemas describe no data, so anyone may read them.
	app.Get("/api/schema/:name", serveSchema)
	// Schedules: the owner, or a credential with the scope (Authority A:
	// schedules:admin creates and cancels, schedules:read or admin reads).
	app.Get("/schedules", owner(schedules.showSchedules)...)
	app.Get("/runs", owner(runs.showRuns)...)
	app.Post("/runs/:id/resolve", owner(runs.resolveRunForm)...)
	app.Post("/schedules/:id/cancel", owner(schedules.cancelScheduleForm)...)
	app.Post("/schedules/:id/approve", owner(schedules.approveScheduleForm)...)
	read := s.requireScheduleScope(models.ScopeSchedulesRead, models.ScopeSchedulesAdmin)
	admin := s.requireScheduleScope(models.ScopeSchedulesAdmin)
	app.Get("/api/schedules", read, schedules.listSchedules)
	app.Post("/api/schedules", admin, schedules.createSchedule)
	app.Get("/api/schedules/due", read, schedules.dueSchedules)
	app.Get("/api/schedules/:id/next", read, schedules.nextSchedule)
	app.Post("/api/schedules/:id/cancel", admin, schedules.cancelSchedule)

	agent := app.Group("/api", s.requireAgent)
	agent.Get("/agent-context", s.requireScope(models.ScopeContextRead), agentAPI.agentContext)
	agent.Get("/agent-wake", s.requireScope(models.ScopeContextRead), wake.agentWake)
	agent.Post("/agent-wake/ack", s.requireScope(models.ScopeContextRead), wake.ackWake)
	agent.Post("/runs", s.requireScope(models.ScopeRunsWrite), runs.startRun)
	agent.Post("/runs/:id/invocations", s.requireScope(models.ScopeRunsWrite), runs.startInvocation)
	agent.Post("/runs/:id/invocations/:n/finish", s.requireScope(models.ScopeRunsWrite), runs.finishInvocation)
	agent.Post("/runs/:id/finish", s.requireScope(models.ScopeRunsWrite), runs.finishRun)
	agent.Post("/agent-health", s.requireScope(models.ScopeRunsWrite), runs.reportAgentHealth)
	agent.Get("/agent-context/:collection", s.requireScope(models.ScopeContextRead), agentAPI.agentContextPage)
	agent.Post("/agent-results", s.requireScope(models.ScopeResultsPublish), agentAPI.publishResult)
	agent.Post("/observations", s.requireScope(models.ScopeObservationsWrite), observations.postObservation)
	agent.Post("/observations/batch", s.requireScope(models.ScopeObservationsWrite), observations.postObservations)
	return app
}

// cacheControl keeps every answer out of browser and proxy caches by
// default (no-store): the agent's reads, exports, errors and redirects hold
// the owner's data or secrets, and a stored copy outlives a logout. The
// owner's own pages, fragments and event stream are the exception:
// no-store on the page (or on a fetch it made) keeps Chromium from holding
// it in the back/forward cache, so Back reloaded it and lost what the
// owner had typed. "private, no-cache" lets the browser alone keep them,
// always revalidated; logout's Clear-Site-Data drops that copy and the
// back/forward cache with it. Static files set their own long cache.
func cacheControl(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	err := c.Next()
	if err == nil && keptByBrowser(c) {
		c.Set(fiber.HeaderCacheControl, "private, no-cache")
	}
	return err
}

// keptByBrowser says whether an answer is an owner's page, fragment or
// event stream, read with GET and answered 200, and not marked neverKept.
func keptByBrowser(c *fiber.Ctx) bool {
	if c.Method() != fiber.MethodGet || c.Response().StatusCode() != fiber.StatusOK || !identityOf(c).owner || c.Locals(neverKeptKey{}) != nil {
		return false
	}
	ct := string(c.Response().Header.ContentType())
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "text/event-stream")
}

type neverKeptKey struct{}

// neverKept keeps a page out of the browser's caches (no-store) when it
// offers an action that can be taken once (a review's Send): Back then
// reads it again and finds what became of it, never a Send that went.
func neverKept(c *fiber.Ctx) { c.Locals(neverKeptKey{}, true) }

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{8,64}$`)

// requestID takes a well-formed incoming X-Request-Id or mints one, and
// echoes it on every response.
func (s *Server) requestID(c *fiber.Ctx) error {
	assignRequestID(c)
	return c.Next()
}

// assignRequestID sets the request's ID once. The error handler calls it too:
// fasthttp rejects an oversized body before any middleware has run.
func assignRequestID(c *fiber.Ctx) string {
	if id, ok := c.Locals(localRequestID).(string); ok {
		return id
	}
	id := c.Get("X-Request-Id")
	if !requestIDPattern.MatchString(id) {
		b := make([]byte, 8)
		rand.Read(b)
		id = hex.EncodeToString(b)
	}
	c.Locals(localRequestID, id)
	c.Set("X-Request-Id", id)
	return id
}

func requestIDOf(c *fiber.Ctx) string { return assignRequestID(c) }

// logRequest writes one line per request; never bodies, tokens or passphrases.
func (s *Server) logRequest(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	if err != nil {
		// Render the error now so the logged status is the one sent.
		if herr := s.handleError(c, err); herr != nil {
			s.log.Error("error handler", "err", herr)
		}
		err = nil
	}
	took := time.Since(start)
	// Server-Timing shows the server's own time in the browser's devtools
	// and lets benchmarks tell it apart from the client's.
	c.Set("Server-Timing", "app;dur="+strconv.FormatFloat(float64(took.Microseconds())/1000, 'f', 3, 64))
	s.log.Info("request", "method", c.Method(), "route", c.Route().Path, "status", c.Response().StatusCode(),
		"duration", took.Round(time.Microsecond), "requestId", requestIDOf(c))
	return err
}

// handleError turns any error that reached Fiber into the envelope (API) or
// a plain page, never leaking internals.
func (s *Server) handleError(c *fiber.Ctx, err error) error {
	if _, ran := c.Locals(localRequestID).(string); !ran {
		// fasthttp rejected the request (an oversized body) before any
		// middleware ran, so logRequest will not see it: log it here.
		defer func() {
			s.log.Info("request", "method", c.Method(), "route", "", "status", c.Response().StatusCode(),
				"requestId", requestIDOf(c), "err", err.Error())
		}()
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusRequestEntityTooLarge:
			return payloadTooLarge(c)
		case fiber.StatusNotFound:
			if wantsPage(c) {
				return s.render(c, fiber.StatusNotFound, viewOf(views.NotFound(identityOf(c).owner)))
			}
			return apiError(c, fe.Code, "not_found", "no such route", nil)
		case fiber.StatusMethodNotAllowed:
			return apiError(c, fe.Code, "method_not_allowed", "method not allowed on this route", nil)
		}
		if fe.Code < 500 {
			return apiError(c, fe.Code, "bad_request", fe.Message, nil)
		}
	}
	if isBrowserForm(c) {
		// The owner's form gets a page, never the API's envelope.
		if rerr := s.renderNotSaved(c, err, backPath(c)); rerr == nil {
			return nil
		}
	}
	s.log.Error("internal error", "err", err, "requestId", requestIDOf(c))
	return apiError(c, fiber.StatusServiceUnavailable, "unavailable", "temporary failure; retry with the same payload", nil)
}

// wantsPage reports whether a browser is opening an address as a page (a
// mistyped or stale link), which gets a page with a way back; the API,
// static files and htmx's fragment requests keep the JSON envelope.
func wantsPage(c *fiber.Ctx) bool {
	if c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead || isHTMX(c) {
		return false
	}
	p := c.Path()
	return !strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/static/") && p != "/sw.js"
}

// isBrowserForm reports whether a browser form (plain or htmx) made the
// request, rather than a JSON client of the API.
func isBrowserForm(c *fiber.Ctx) bool {
	if c.Method() != fiber.MethodPost || strings.HasPrefix(c.Path(), "/api/") {
		return false
	}
	ct := c.Get(fiber.HeaderContentType)
	return isHTMX(c) || strings.HasPrefix(ct, fiber.MIMEApplicationForm) || strings.HasPrefix(ct, fiber.MIMEMultipartForm)
}

// notSaved says why an owner's write failed inside hearth (not because of
// what was entered), and that what was entered is kept.
func notSaved(err error) string {
	if errors.Is(err, models.ErrStorageFull) {
		return "Not saved: the server's disk is full. What you entered is kept here; try again once space is freed."
	}
	return "Not saved: hearth could not store this just now. What you entered is kept here; try again."
}

// renderNotSaved answers a browser form whose write failed inside hearth
// with a page (503): the reason, what the owner entered, and a way back.
func (s *Server) renderNotSaved(c *fiber.Ctx, err error, back string, entered ...string) error {
	s.log.Error("owner form not saved", "err", err, "route", c.Route().Path, "requestId", requestIDOf(c))
	msgs := []string{notSaved(err)}
	for _, e := range entered {
		if e = strings.TrimSpace(e); e != "" {
			msgs = append(msgs, "You entered: "+e)
		}
	}
	return s.render(c, fiber.StatusServiceUnavailable, formError("Not saved", msgs, back))
}

// formError is a refused form's page; htmx shows it in place of the page,
// not inside the form it swapped.
func formError(title string, msgs []string, back string) view {
	v := viewOf(views.FormError(title, msgs, back))
	v.wholeBody = true
	return v
}

// backPath is where a failed form's page leads back to: the form's own
// return field, else the page it was posted from, else Home.
func backPath(c *fiber.Ctx) string {
	if r := c.FormValue("return"); r != "" {
		return safePath(r)
	}
	if ref, err := url.Parse(c.Get(fiber.HeaderReferer)); err == nil && ref.Host == string(c.Request().Host()) && ref.Path != "" {
		return safePath(ref.RequestURI())
	}
	return "/"
}

func (s *healthHandlers) health(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		return c.Status(fiber.StatusServiceUnavailable).SendString("unavailable")
	}
	return c.SendString("ok")
}

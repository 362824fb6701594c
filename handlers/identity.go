package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"

	"hearth/models"
)

// identityStore authenticates callers.
type identityStore interface {
	AuthenticateAgent(ctx context.Context, token string) (models.AgentCredential, error)
	AuthenticateSession(ctx context.Context, token string) (models.OwnerSession, error)
}

// identityHandlers resolve who made each request.
type identityHandlers struct {
	*Server
	store identityStore
}

type localKey int

const (
	localRequestID localKey = iota
	localIdentity
)

// SessionCookie is the owner session cookie.
const SessionCookie = "hearth_session"

// identity is who made a request: nobody, the owner, or an agent credential.
type identity struct {
	owner        bool
	sessionToken string
	agent        *models.AgentCredential
	// agentErr is set when a bearer token was presented but not accepted.
	agentErr error
}

func identityOf(c *fiber.Ctx) identity {
	id, _ := c.Locals(localIdentity).(identity)
	return id
}

// identify resolves the caller once; the route groups decide what to accept.
// A bearer token wins over a cookie so an agent never acts as the owner.
func (s *identityHandlers) identify(c *fiber.Ctx) error {
	var id identity
	if auth := c.Get(fiber.HeaderAuthorization); auth != "" {
		token, ok := bearerToken(auth)
		if !ok {
			id.agentErr = models.ErrUnauthorized
		} else if cred, err := s.store.AuthenticateAgent(c.UserContext(), token); err != nil {
			id.agentErr = err
		} else {
			id.agent = &cred
		}
	} else if token := c.Cookies(SessionCookie); token != "" {
		if _, err := s.store.AuthenticateSession(c.UserContext(), token); err == nil {
			id.owner, id.sessionToken = true, token
		} else if !errors.Is(err, models.ErrUnauthorized) {
			return err
		}
	}
	if !id.owner && id.agent == nil && id.agentErr == nil && s.cfg.TailscaleOwner != "" {
		// Only tailscale serve may assert a Tailscale login: a loopback peer
		// that addressed a configured (tailnet) name, never a loopback one.
		if c.Context().RemoteIP().IsLoopback() && s.onTailnetName(c) && c.Get("Tailscale-User-Login") == s.cfg.TailscaleOwner {
			id.owner = true
		}
	}
	if id.agentErr != nil && !errors.Is(id.agentErr, models.ErrUnauthorized) {
		return id.agentErr
	}
	c.Locals(localIdentity, id)
	return c.Next()
}

// bearerToken is the credential of an Authorization header in the Bearer
// scheme, whose name is case-insensitive (RFC 7235 §2.1).
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// requireOwner admits the owner; an agent credential gets 403, nobody is sent to log in.
func (s *Server) requireOwner(c *fiber.Ctx) error {
	id := identityOf(c)
	switch {
	case id.owner:
		return c.Next()
	case id.agent != nil:
		return apiError(c, fiber.StatusForbidden, "forbidden", "agent credentials cannot use owner routes", nil)
	case id.agentErr != nil:
		return apiError(c, fiber.StatusUnauthorized, "unauthorized", "missing, unknown or revoked credential", nil)
	case c.Method() == fiber.MethodGet:
		return c.Redirect("/login", fiber.StatusSeeOther)
	default:
		return apiError(c, fiber.StatusUnauthorized, "unauthorized", "log in first", nil)
	}
}

// requireAgent admits agent credentials; the owner gets 403.
func (s *Server) requireAgent(c *fiber.Ctx) error {
	id := identityOf(c)
	switch {
	case id.agent != nil:
		return c.Next()
	case id.owner:
		return apiError(c, fiber.StatusForbidden, "forbidden", "owner sessions cannot use agent routes", nil)
	default:
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="hearth"`)
		return apiError(c, fiber.StatusUnauthorized, "unauthorized", "missing, unknown or revoked credential: send Authorization: Bearer hearth_…", nil)
	}
}

// requireScope admits agent credentials that carry scope.
func (s *Server) requireScope(scope string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !identityOf(c).agent.HasScope(scope) {
			return apiError(c, fiber.StatusForbidden, "forbidden", "credential lacks scope "+scope, fiber.Map{"requiredScope": scope})
		}
		return c.Next()
	}
}

// requireScheduleScope admits the owner (with cross-origin protection) and
// agent credentials carrying one of scopes; another credential gets 403
// naming scopes[0] as requiredScope, nobody 401. A body or a file never
// grants authority: only the authenticated request does.
func (s *Server) requireScheduleScope(scopes ...string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id := identityOf(c)
		switch {
		case id.owner:
			return s.crossOriginProtection(c)
		case id.agent != nil:
			for _, sc := range scopes {
				if id.agent.HasScope(sc) {
					return c.Next()
				}
			}
			return apiError(c, fiber.StatusForbidden, "forbidden", "credential lacks scope "+scopes[0], fiber.Map{"requiredScope": scopes[0]})
		default:
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="hearth"`)
			return apiError(c, fiber.StatusUnauthorized, "unauthorized", "missing, unknown or revoked credential: send Authorization: Bearer hearth_…", nil)
		}
	}
}

// actorOf is who an authorized schedule request acts as.
func actorOf(c *fiber.Ctx) models.Actor {
	if id := identityOf(c); id.agent != nil {
		return models.OperatorActor(*id.agent)
	}
	return models.OwnerActor()
}

// loginClient is whose failed logins a login counts against. Behind
// tailscale serve every peer is 127.0.0.1, so one tailnet device's guesses
// would lock out all others: a request tailscale serve forwarded (the rule
// the identity middleware trusts) counts against its Tailscale login,
// which serve sets itself. Each login still gets only 5 guesses a minute.
func (s *Server) loginClient(c *fiber.Ctx) string {
	if login := c.Get("Tailscale-User-Login"); login != "" && c.Context().RemoteIP().IsLoopback() && s.onTailnetName(c) {
		return "tailscale:" + login
	}
	return "addr:" + c.IP()
}

// crossOrigin applies Go's CrossOriginProtection rules to owner routes.
var crossOrigin = http.NewCrossOriginProtection()

func (s *Server) crossOriginProtection(c *fiber.Ctx) error {
	req := &http.Request{Method: c.Method(), Host: string(c.Request().Host()), Header: http.Header{}}
	for _, h := range []string{"Sec-Fetch-Site", "Origin"} {
		if v := c.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	if err := crossOrigin.Check(req); err != nil {
		return apiError(c, fiber.StatusForbidden, "forbidden", "cross-origin request refused", nil)
	}
	return c.Next()
}

// loginLimiter allows 5 failed logins a minute per client: its address,
// or its Tailscale login when tailscale serve forwarded the request.
func (s *Server) loginLimiter() fiber.Handler {
	const window = time.Minute
	return limiter.New(limiter.Config{
		Max:                    5,
		Expiration:             window,
		KeyGenerator:           s.loginClient,
		SkipSuccessfulRequests: true,
		LimitReached: func(c *fiber.Ctx) error {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(window.Seconds())))
			return apiError(c, fiber.StatusTooManyRequests, "rate_limited", "too many failed logins; wait a minute", nil)
		},
	})
}

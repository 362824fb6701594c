package handlers

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// HostName is the name part of a Host header or a --host value: lower
// case, without port, brackets or a trailing dot. It refuses what cannot be
// a host name (a URL, a path, a wildcard, a user part, spaces).
func HostName(hostport string) (string, error) {
	h := strings.ToLower(strings.TrimSpace(hostport))
	port := ""
	if strings.HasPrefix(h, "[") {
		end := strings.Index(h, "]")
		if end < 0 || (end+1 < len(h) && h[end+1] != ':') {
			return "", fmt.Errorf("host %q: unbalanced brackets", hostport)
		}
		h, port = h[1:end], strings.TrimPrefix(h[end+1:], ":")
	} else if strings.Count(h, ":") == 1 {
		h, port, _ = strings.Cut(h, ":")
	}
	if strings.Trim(port, "0123456789") != "" {
		return "", fmt.Errorf("host %q: the port is not a number (give a name, not a URL)", hostport)
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", errors.New("empty host name")
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return h, nil
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return "", fmt.Errorf("host %q: a name has only letters, digits, '-', '_' and '.' (no scheme, port range, path or wildcard)", hostport)
		}
	}
	return h, nil
}

// isLoopbackName reports whether name always means this machine: localhost
// or a loopback address. A page can address those only from this machine's
// own origin, so a DNS rebinding page never sends them.
func isLoopbackName(name string) bool {
	if name == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.IsLoopback()
}

// hostSet is the configured names (Config.Hosts), normalised.
func hostSet(names []string) map[string]bool {
	set := map[string]bool{}
	for _, n := range names {
		if h, err := HostName(n); err == nil {
			set[h] = true
		}
	}
	return set
}

// requestHost is the normalised name the request addressed, "" when it
// has none or an unreadable one.
func requestHost(c *fiber.Ctx) string {
	h, err := HostName(string(c.Request().Host()))
	if err != nil {
		return ""
	}
	return h
}

// checkHost answers 421 to a request for a name hearth was not started
// for. A DNS rebinding page (its own name pointed at 127.0.0.1) is
// same-origin with itself, so cross-origin checks and cookies' SameSite do
// not stop it; only the Host it must send does. One rule for every route,
// the agent API and /healthz included: legitimate clients all use a
// loopback name or a configured one.
func (s *Server) checkHost(c *fiber.Ctx) error {
	if h := requestHost(c); h != "" && (isLoopbackName(h) || s.hosts[h]) {
		return c.Next()
	}
	const msg = "hearth does not answer for this host name; to allow it, start hearth serve with --host NAME (or HEARTH_HOSTS)"
	if strings.HasPrefix(c.Path(), "/api/") {
		return apiError(c, fiber.StatusMisdirectedRequest, "misdirected_request", msg, nil)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
	return c.Status(fiber.StatusMisdirectedRequest).SendString(fmt.Sprintf("421 Misdirected Request: %s (got Host %q)\n", msg, c.Request().Host()))
}

// onTailnetName reports whether the request addressed a configured
// non-loopback name: tailscale serve forwards the Host the browser used, so
// its identity header never comes with a loopback Host.
func (s *Server) onTailnetName(c *fiber.Ctx) bool {
	h := requestHost(c)
	return h != "" && !isLoopbackName(h) && s.hosts[h]
}

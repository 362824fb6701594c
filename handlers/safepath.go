package handlers

import (
	"net/url"
	"strings"
)

// safePath returns next when it is a path on this site, else "/". Every
// return or next address a request carries goes through it before it
// becomes a Location or a link, so hearth is never an open redirect.
func safePath(next string) string {
	if isSameSitePath(next) {
		return next
	}
	return "/"
}

// isSameSitePath reports whether a browser would resolve p to this site:
// it begins with one "/", holds no backslash (browsers read "\" as "/"),
// no control character (browsers drop tabs and newlines, and a newline
// would split the header), and neither it nor its decoded forms name a
// scheme, a host or a user. Decoded forms are checked too, so an address
// that a later hop unescapes ("/%2F%2Fhost", "/%5Chost") is refused.
func isSameSitePath(p string) bool {
	if len(p) > 2048 {
		return false
	}
	for range 3 {
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsFunc(p, isUnsafePathRune) {
			return false
		}
		u, err := url.Parse(p)
		if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
			return false
		}
		decoded, err := url.PathUnescape(p)
		if err != nil {
			return false
		}
		if decoded == p {
			return true
		}
		p = decoded
	}
	return false // still encoded after three rounds: not a path hearth renders
}

func isUnsafePathRune(r rune) bool {
	return r == '\\' || r < 0x20 || r == 0x7f
}

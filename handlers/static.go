package handlers

import (
	"mime"
	"path"

	"github.com/gofiber/fiber/v2"

	"hearth/static"
)

// serveStatic serves an embedded file with a strong ETag. A request for the
// current content hash (?v=HASH, as every page links it) may be cached
// forever; any other is revalidated.
func serveStatic(c *fiber.Ctx) error {
	name := c.Params("name")
	hash := static.Hash(name)
	if hash == "" {
		return fiber.ErrNotFound
	}
	etag := `"` + hash + `"`
	c.Set(fiber.HeaderETag, etag)
	if c.Query("v") == hash {
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		c.Set(fiber.HeaderCacheControl, "no-cache")
	}
	if c.Get(fiber.HeaderIfNoneMatch) == etag {
		return c.SendStatus(fiber.StatusNotModified)
	}
	body, err := static.FS.ReadFile(name)
	if err != nil {
		return fiber.ErrNotFound
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if path.Ext(name) == ".webmanifest" {
		ctype = "application/manifest+json"
	}
	c.Set(fiber.HeaderContentType, ctype)
	return c.Send(body)
}

// contentSecurityPolicy allows only hearth's own scripts, styles and
// connections; no inline script is needed anywhere, and the one inline style
// element (the stylesheet, so it does not block the first paint) is allowed
// by its hash alone.
var contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' " + static.InlineHash("hearth.css") + "; img-src 'self' data:; " +
	"connect-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders sets the CSP and the usual hardening headers on every response.
func securityHeaders(c *fiber.Ctx) error {
	c.Set("Content-Security-Policy", contentSecurityPolicy)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "same-origin")
	c.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	return c.Next()
}

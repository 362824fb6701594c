package handlers

import (
	"bytes"
	"strings"
	"sync"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/klauspost/compress/gzip"
	"github.com/valyala/fasthttp"
)

// view is one HTML answer: the whole page and, where htmx swaps only a part
// of it, that fragment. Only the one sent is built, so a fragment never pays
// for the page's reads.
type view struct {
	// page is the answer to a plain request (and to htmx when fragment is nil).
	page func() (templ.Component, error)
	// fragment, when set, is the answer to an htmx request. A builder that
	// answered the request itself (a 404) returns a nil component.
	fragment func() (templ.Component, error)
	// wholeBody tells htmx to show the answer in place of the page's body,
	// not inside the form it swapped: a refused form's page.
	wholeBody bool
}

// viewOf is a view that is the same component for every request.
func viewOf(comp templ.Component) view {
	return view{page: func() (templ.Component, error) { return comp, nil }}
}

// pageOrFragment is a view that is page for a plain request and fragment for htmx.
func pageOrFragment(page, fragment templ.Component) view {
	return view{page: func() (templ.Component, error) { return page, nil }, fragment: func() (templ.Component, error) { return fragment, nil }}
}

// render is the one way hearth writes HTML: it picks the page or, for htmx,
// the fragment, renders it whole (a render error leaves nothing half sent)
// and sends it with status through sendHTML.
func (s *Server) render(c *fiber.Ctx, status int, v view) error {
	build := v.page
	if v.fragment != nil && isHTMX(c) {
		build = v.fragment
	}
	comp, err := build()
	if err != nil || comp == nil {
		return err
	}
	buf := takeRenderBuffer()
	defer returnRenderBuffer(buf)
	if err := comp.Render(c.UserContext(), buf); err != nil {
		s.log.Error("render", "err", err, "requestId", requestIDOf(c))
		return err
	}
	if v.wholeBody && isHTMX(c) {
		c.Set("HX-Retarget", "body")
		c.Set("HX-Reswap", "innerHTML")
	}
	return sendHTML(c, status, buf.Bytes())
}

// renderCached renders comp whole, keeps it in the page cache under key
// (each idPlaceholder in it a slot for a fresh request ID) and sends it:
// the miss path of every cached page.
func (s *Server) renderCached(c *fiber.Ctx, key string, comp templ.Component) error {
	buf := takeRenderBuffer()
	defer returnRenderBuffer(buf)
	if err := comp.Render(c.UserContext(), buf); err != nil {
		return err
	}
	// A copy: the cached parts outlive the pooled buffer.
	page := newCachedPage(bytes.Clone(buf.Bytes()))
	s.pages.put(key, page)
	return sendCached(c, page)
}

// minGzipBytes is the smallest HTML worth compressing: below it the gzip
// header and trailer outweigh the saving (fasthttp's own threshold).
const minGzipBytes = 200

// localEncoded marks a response whose encoding sendHTML chose, so
// compressOthers leaves it alone.
const localEncoded = "hearth.encoded"

// sendHTML writes HTML parts as one body with status: UTF-8, Vary on
// Accept-Encoding, and gzip at BestSpeed when the client takes it. It is the
// one place an HTML answer's encoding is decided, for rendered pages and
// fragments and for the page cache's renders alike. BestSpeed, because for a
// page of hundreds of KB (Routines with a year of twenty routines) the
// middleware's default level cost more than the render (make bench).
func sendHTML(c *fiber.Ctx, status int, parts ...[]byte) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	c.Locals(localEncoded, true)
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	if size >= minGzipBytes && strings.Contains(c.Get(fiber.HeaderAcceptEncoding), "gzip") {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		return c.Send(compressPage(parts...))
	}
	// A copy: the parts may be a pooled buffer that is reused once this returns.
	return c.Send(bytes.Join(parts, nil))
}

// gzipWriters are reused: a new writer allocates its tables, which cost
// more than compressing a page.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

// compressPage gzips the parts of a page as one stream.
func compressPage(parts ...[]byte) []byte {
	var buf bytes.Buffer
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	buf.Grow(max(16<<10, size/6)) // HTML compresses about tenfold: one allocation
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&buf)
	for _, p := range parts {
		zw.Write(p)
	}
	zw.Close()
	gzipWriters.Put(zw)
	return buf.Bytes()
}

// compressOthers compresses every answer sendHTML did not write (the API's
// JSON, static files) when the client takes it, as Fiber's compress
// middleware did at its default levels; /events is left alone, since a
// compressed stream would be buffered and must flush per event.
func compressOthers() fiber.Handler {
	compress := fasthttp.CompressHandlerBrotliLevel(func(*fasthttp.RequestCtx) {},
		fasthttp.CompressBrotliDefaultCompression, fasthttp.CompressDefaultCompression)
	return func(c *fiber.Ctx) error {
		if c.Path() == "/events" {
			return c.Next()
		}
		if err := c.Next(); err != nil {
			return err
		}
		if encoded, _ := c.Locals(localEncoded).(bool); !encoded {
			compress(c.Context())
		}
		return nil
	}
}

// renderBuffers are reused: a page of hundreds of KB grown from nothing
// was most of a render's garbage. A channel rather than a sync.Pool, which
// every garbage collection empties.
var renderBuffers = make(chan *bytes.Buffer, 4)

func takeRenderBuffer() *bytes.Buffer {
	select {
	case buf := <-renderBuffers:
		buf.Reset()
		return buf
	default:
		return new(bytes.Buffer)
	}
}

func returnRenderBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 4<<20 { // a freak page is not kept
		select {
		case renderBuffers <- buf:
		default:
		}
	}
}

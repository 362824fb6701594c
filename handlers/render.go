package handlers

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/valyala/fasthttp"

	"hearth/views"
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
	ctx := c.UserContext()
	formAnswer := c.Method() == fiber.MethodPost && !isHTMX(c)
	if formAnswer {
		// A whole page answering a plain form (a refusal): live updates
		// must not reload it.
		ctx = views.WithFormAnswer(ctx)
	}
	buf := takeRenderBuffer()
	defer returnRenderBuffer(buf)
	if err := comp.Render(ctx, buf); err != nil {
		s.log.Error("render", "err", err, "requestId", requestIDOf(c))
		return err
	}
	if v.wholeBody && isHTMX(c) {
		c.Set("HX-Retarget", "body")
		c.Set("HX-Reswap", "innerHTML")
	}
	if formAnswer && identityOf(c).owner && s.answers != nil && buf.Len() <= maxAnswerPage {
		// Post/redirect/get for every page answering an owner's form:
		// the page is kept and shown by the GET its 303 leads to, so a
		// reload or Back shows it again and never posts the form again.
		id := s.answers.put(pageAnswer{status: status, html: bytes.Clone(buf.Bytes())})
		return c.Redirect("/answers/"+id, fiber.StatusSeeOther)
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

// sendHTML writes HTML parts as one body with status, gzip at BestSpeed
// when the client takes it. BestSpeed, and not the compress middleware's
// brotli: for a page of hundreds of KB (Routines with a year of twenty
// routines) brotli at its default level costs tens of times the CPU of a
// cached page's gzip (BenchmarkHTMLEncoding/*-again/middleware).
func sendHTML(c *fiber.Ctx, status int, parts ...[]byte) error {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	if startHTML(c, status, size) {
		return c.Send(compressPage(parts...))
	}
	// A copy: the parts may be a pooled buffer that is reused once this returns.
	return c.Send(bytes.Join(parts, nil))
}

// startHTML sets an HTML answer's status and headers (UTF-8, Vary on
// Accept-Encoding) and says whether it goes gzipped: the one place an HTML
// answer's encoding is decided, for rendered pages, fragments and cached
// pages alike.
func startHTML(c *fiber.Ctx, status, size int) (gzipped bool) {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	c.Locals(localEncoded, true)
	if size < minGzipBytes || !takesGzip(c) {
		return false
	}
	c.Set(fiber.HeaderContentEncoding, "gzip")
	return true
}

// gzipWriters are reused: a new writer allocates its tables, which cost
// more than compressing a page.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

// compressPage gzips the parts of a page as one stream.
func compressPage(parts ...[]byte) []byte {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	var buf bytes.Buffer
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

// A cached page is compressed once, when it is cached: each part between
// its requestIds is deflated on its own, byte-aligned (a sync flush), and
// a response is a gzip member made of those blocks with its own IDs as
// stored blocks between them, a final empty block, and the CRC and size of
// the whole. Deflate blocks concatenate, so this is one ordinary gzip
// stream. It is what makes a cache hit cheap: against gzipping the page
// again per response, a response's encoding costs Home 8-13x, Routines
// 15-24x less CPU (BenchmarkHTMLEncoding/*-again).

// flateWriters deflate the parts of cached pages. A channel rather than a
// sync.Pool, which every garbage collection empties: after a commit each
// request re-made its writer's tables (about 30 KB of a Home render's garbage).
var flateWriters = make(chan *flate.Writer, 4)

// takeFlateWriter is a kept writer reset to w, or a new one.
func takeFlateWriter(w io.Writer) *flate.Writer {
	select {
	case fw := <-flateWriters:
		fw.Reset(w)
		return fw
	default:
		fw, _ := flate.NewWriter(w, flate.BestSpeed)
		return fw
	}
}

// returnFlateWriter keeps fw for the next take, unless four are kept.
func returnFlateWriter(fw *flate.Writer) {
	fw.Reset(nil) // drop the reference to the output
	select {
	case flateWriters <- fw:
	default:
	}
}

// deflatePart is p deflated, sync-flushed and not final. The stylesheet
// every page carries inline is deflated once: it was half of deflating
// Home (28 of 77 KB, less repetitive than the markup).
func deflatePart(p []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(p)/4 + 64)
	if i := bytes.Index(p, styleStart); i >= 0 && bytes.HasPrefix(p[i:], inlineStyle) {
		deflateTo(&buf, p[:i])
		buf.Write(inlineStyleDeflated)
		p = p[i+len(inlineStyle):]
	}
	deflateTo(&buf, p)
	return buf.Bytes()
}

var (
	styleStart          = []byte("<style>")
	inlineStyle         = []byte(views.StyleElement())
	inlineStyleDeflated = deflate(inlineStyle)
)

// deflate is p deflated, sync-flushed and not final.
func deflate(p []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(p)/4 + 64)
	deflateTo(&buf, p)
	return buf.Bytes()
}

// deflateTo appends p deflated, sync-flushed and not final, to buf: each
// such piece starts its own blocks, so pieces written one after another
// concatenate.
func deflateTo(buf *bytes.Buffer, p []byte) {
	fw := takeFlateWriter(buf)
	fw.Write(p)
	fw.Flush()
	returnFlateWriter(fw)
}

// gzipHeader is a gzip member header: deflate, no name, no time, OS unknown.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// gzipCached is page with ids[i] between its parts i and i+1, gzipped from
// the parts' kept deflate blocks.
func gzipCached(page cachedPage, ids [][]byte) []byte {
	out := bytes.NewBuffer(make([]byte, 0, page.deflatedSize+len(ids)*64+32))
	out.Write(gzipHeader)
	crc, size := uint32(0), 0
	for i, p := range page.parts {
		if i > 0 {
			writeStored(out, ids[i-1])
			crc = crc32.Update(crc, crc32.IEEETable, ids[i-1])
			size += len(ids[i-1])
		}
		out.Write(page.deflated[i])
		crc = crc32.Update(crc, crc32.IEEETable, p)
		size += len(p)
	}
	out.Write([]byte{1, 0, 0, 0xff, 0xff}) // the final block, empty and stored
	out.Write(binary.LittleEndian.AppendUint32(nil, crc))
	out.Write(binary.LittleEndian.AppendUint32(nil, uint32(size)))
	return out.Bytes()
}

// writeStored writes p as stored (uncompressed) deflate blocks, not final.
func writeStored(out *bytes.Buffer, p []byte) {
	for len(p) > 0 {
		n := min(len(p), 0xffff)
		out.Write([]byte{0, byte(n), byte(n >> 8), ^byte(n), ^byte(n >> 8)})
		out.Write(p[:n])
		p = p[n:]
	}
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

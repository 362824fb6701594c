package handlers

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"hash/maphash"
	"strings"
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
	if htmlToMiddleware {
		c.Locals(localEncoded, false)
		return c.Send(bytes.Join(parts, nil))
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

// compressPage gzips the parts of a page as one stream. A page of
// chunkedGzipBytes or more is compressed in chunks kept between responses
// (gzipChunked); a smaller one in one go.
func compressPage(parts ...[]byte) []byte {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	if size >= chunkedGzipBytes {
		return gzipChunked(parts)
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

// Pages are compressed in chunks whose deflate output is kept, so a
// response compresses only what changed since an earlier one: after a
// commit most of Home or Routines is the bytes of the render before, and
// a cached page's per-response requestIds no longer make the whole page be
// compressed again (gzip was a third of Routines' render, make bench).
//
// A part (the text between requestIds) is cut where its content says (a
// tag whose preceding bytes hash to a mark), so chunks after a changed
// row line up again. Each chunk is deflated on its own, byte-aligned (a
// sync flush), with the 32 KB before it in the same part as its window;
// requestIds and other short parts go as stored blocks. Deflate blocks
// concatenate, so the response is one gzip member: header, the chunks'
// blocks, a final empty block, and the CRC and size of the whole.
// htmlToMiddleware leaves HTML to compressOthers, as Fiber's compress
// middleware would: a benchmark's switch (BenchmarkCachesRoutines).
var htmlToMiddleware bool

// chunkedGzipBytes is a var so a benchmark can turn chunks off.
var chunkedGzipBytes = 128 << 10

const (
	// Smaller answers are compressed in one go: Home (60 KB) changes in
	// most chunks after a commit, and a chunk compressed anew pays for
	// loading its 32 KB window too, so chunks made Home's render no faster.
	minChunkBytes   = 16 << 10
	maxChunkBytes   = 32 << 10 // deflate's window: the bytes before a chunk it may refer to
	storedPartBytes = 512      // shorter parts are not worth a chunk
	chunkCacheSize  = 1024
)

// gzipChunkCache keeps each chunk's deflate output by the chunk's bytes and
// the window it was compressed against, named by two 64-bit hashes of the
// chunk and one of the window (content addresses; the seeds are random per
// process).
var gzipChunkCache = newFIFOCache[[]byte](chunkCacheSize)

var chunkSeeds = [3]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed(), maphash.MakeSeed()}

// flateWriters compress single chunks.
var flateWriters = sync.Pool{New: func() any {
	fw, _ := flate.NewWriter(nil, flate.BestSpeed)
	return fw
}}

// gzipHeader is a gzip member header: deflate, no name, no time, OS unknown.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

func gzipChunked(parts [][]byte) []byte {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	out := bytes.NewBuffer(make([]byte, 0, max(16<<10, size/6)))
	out.Write(gzipHeader)
	crc := uint32(0)
	for _, p := range parts {
		crc = crc32.Update(crc, crc32.IEEETable, p)
		if len(p) < storedPartBytes {
			writeStored(out, p)
			continue
		}
		for start := 0; start < len(p); {
			end := chunkEnd(p, start)
			out.Write(deflateChunk(p[start:end], p[max(0, start-maxChunkBytes):start]))
			start = end
		}
	}
	out.Write([]byte{1, 0, 0, 0xff, 0xff}) // the final block, empty and stored
	out.Write(binary.LittleEndian.AppendUint32(nil, crc))
	out.Write(binary.LittleEndian.AppendUint32(nil, uint32(size)))
	return out.Bytes()
}

// chunkEnd is where the chunk of p that begins at start ends: before the
// first tag at least minChunkBytes on whose preceding 32 bytes hash to a
// mark (one tag in 32), at most maxChunkBytes on, or at the end of p.
func chunkEnd(p []byte, start int) int {
	limit := min(len(p), start+maxChunkBytes)
	if len(p)-start <= minChunkBytes+storedPartBytes {
		return len(p)
	}
	for i := start + minChunkBytes; i < limit; i++ {
		j := bytes.IndexByte(p[i:limit], '<')
		if j < 0 {
			break
		}
		i += j
		if maphash.Bytes(chunkSeeds[0], p[i-32:i])&31 == 0 {
			return i
		}
	}
	return limit
}

// deflateChunk is chunk deflated (a sync flush, no final block) with window
// as the bytes before it, from the cache when it was compressed before.
func deflateChunk(chunk, window []byte) []byte {
	key := string(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(
		binary.LittleEndian.AppendUint64(nil, maphash.Bytes(chunkSeeds[1], chunk)),
		maphash.Bytes(chunkSeeds[2], chunk)), maphash.Bytes(chunkSeeds[1], window)))
	if z, ok := gzipChunkCache.get(key); ok {
		return z
	}
	var buf bytes.Buffer
	buf.Grow(len(chunk)/4 + 64)
	fw := flateWriters.Get().(*flate.Writer)
	fw.ResetDict(&buf, window)
	fw.Write(chunk)
	fw.Flush()
	fw.ResetDict(nil, nil) // drop the references to the page
	flateWriters.Put(fw)
	z := buf.Bytes()
	gzipChunkCache.put(key, z)
	return z
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

package handlers

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sys/unix"
)

// Why a long poll's context ended early.
var (
	errClientGone   = errors.New("the client closed the connection")
	errShuttingDown = errors.New("the server is shutting down")
)

// statusClientClosed is nginx's "client closed request": the log line of a
// poll whose client left says so; nobody reads the answer.
const statusClientClosed = 499

// pollContext is the context of a long poll: it ends when the client hangs
// up or the server shuts down. fasthttp cancels neither (a handler's user
// context is Background), so a poll kept waiting for a client that had left
// and handed it work, and a shutdown waited for the poll's timeout. The
// returned stop must be called before the handler returns.
func pollContext(c *fiber.Ctx) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(c.UserContext())
	var wg sync.WaitGroup
	// Read here, on the handler's goroutine: the RequestCtx is reused after it returns.
	if shutdown := c.Context().Done(); shutdown != nil { // nil under app.Test
		wg.Go(func() {
			select {
			case <-shutdown:
				cancel(errShuttingDown)
			case <-ctx.Done():
			}
		})
	}
	conn := c.Context().Conn()
	var raw syscall.RawConn
	if sc, ok := conn.(syscall.Conn); ok { // a real socket; app.Test's conn is not
		raw, _ = sc.SyscallConn()
	}
	if raw != nil {
		// fasthttp's read timeout would end the watch; it sets its own again before the next request.
		conn.SetReadDeadline(time.Time{})
		wg.Go(func() {
			if peerClosed(raw) {
				cancel(errClientGone)
			}
		})
	}
	return ctx, func() {
		cancel(nil)
		if raw != nil {
			conn.SetReadDeadline(time.Now()) // wakes the watch
		}
		wg.Wait()
		if raw != nil {
			conn.SetReadDeadline(time.Time{})
		}
	}
}

// peerClosed waits until the client closes or resets the connection (true),
// or sends more bytes or the read deadline passes (false). It only peeks, so
// a request the client pipelined is left for fasthttp to read.
func peerClosed(raw syscall.RawConn) bool {
	closed := false
	buf := make([]byte, 1)
	raw.Read(func(fd uintptr) bool {
		n, _, err := unix.Recvfrom(int(fd), buf, unix.MSG_PEEK|unix.MSG_DONTWAIT)
		switch {
		case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
			return false // nothing yet: wait until the socket is readable
		case err != nil || n == 0:
			closed = true // reset, or the client's FIN
		}
		return true
	})
	return closed
}

// pollEnded answers a poll whose context ended before it had an answer.
func pollEnded(c *fiber.Ctx, ctx context.Context) error {
	if errors.Is(context.Cause(ctx), errShuttingDown) {
		c.Set(fiber.HeaderRetryAfter, "5")
		return apiError(c, fiber.StatusServiceUnavailable, "unavailable", "hearth is shutting down; poll again", nil)
	}
	c.Context().SetConnectionClose()
	return c.SendStatus(statusClientClosed)
}

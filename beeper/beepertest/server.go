package beepertest

import (
	"net/http"
	"net/http/httptest"
	"time"

	"hearth/beeper"
)

// Token is the access token Start's fake accepts and its client sends.
const Token = "beepertest-token"

// TB is the part of testing.TB that Start needs (so this package does not
// import testing, as the demo binary links it).
type TB interface {
	Helper()
	Cleanup(func())
}

// Server is a Fake served over real HTTP on loopback, with a client that reaches it.
type Server struct {
	*Fake
	URL    string
	Client *beeper.Client
}

// Start serves a new Fake on loopback until tb's cleanup, through wrap when
// it is given (to inject transport faults or observe requests), and returns
// it with a client whose calls time out after two seconds.
func Start(tb TB, wrap func(*Fake) http.Handler, opts ...Option) Server {
	tb.Helper()
	fake := New(Token, opts...)
	var h http.Handler = fake
	if wrap != nil {
		h = wrap(fake)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return Server{Fake: fake, URL: srv.URL, Client: beeper.NewClient(srv.URL, Token, beeper.WithTimeout(2*time.Second))}
}

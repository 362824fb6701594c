package beeper_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
)

const token = beepertest.Token

// fakeServer runs a fake over real HTTP and remembers the raw request URIs it saw.
type fakeServer struct {
	*beepertest.Fake
	URL  string
	mu   sync.Mutex
	uris []string
}

func (s *fakeServer) lastURI() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uris[len(s.uris)-1]
}

func newFake(t *testing.T, opts ...beepertest.Option) (*fakeServer, *beeper.Client) {
	t.Helper()
	fs := &fakeServer{}
	b := beepertest.Start(t, func(f *beepertest.Fake) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fs.mu.Lock()
			fs.uris = append(fs.uris, r.RequestURI)
			fs.mu.Unlock()
			f.ServeHTTP(w, r)
		})
	}, opts...)
	fs.Fake, fs.URL = b.Fake, b.URL
	return fs, b.Client
}

func TestInfoReportsAppAndVersionHeader(t *testing.T) {
	_, c := newFake(t)
	info, err := c.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != beepertest.Version || info.App.Version != beepertest.Version || info.App.Name == "" {
		t.Fatalf("info = %+v", info)
	}
}

func TestAccountsListsTheSeededWhatsAppAccount(t *testing.T) {
	_, c := newFake(t)
	accts, err := c.Accounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(accts) != 1 {
		t.Fatalf("accounts = %+v", accts)
	}
	a := accts[0]
	if a.AccountID != "whatsapp-demo" || a.Network != "WhatsApp" || a.User.ID != "@owner:beeper.local" || a.User.FullName != "Sam Rivera" || !a.User.IsSelf {
		t.Fatalf("account = %+v", a)
	}
}

func TestChatsListMostRecentActivityFirstWithPreviewAndParticipants(t *testing.T) {
	f, c := newFake(t)
	page, err := c.Chats(t.Context(), beeper.ChatsQuery{AccountIDs: []string{"whatsapp-demo", "other"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.lastURI(); got != "/v1/chats?accountIDs=whatsapp-demo&accountIDs=other" {
		t.Errorf("request URI = %s, want the array key repeated", got)
	}
	var ids []string
	for _, ch := range page.Items {
		ids = append(ids, ch.ID)
	}
	want := []string{"!ana-okafor:beeper.local", "!tomas-lindqvist:beeper.local", "!climbing-crew:beeper.local"}
	if !slices.Equal(ids, want) || page.HasMore {
		t.Fatalf("chats = %v hasMore=%v, want %v", ids, page.HasMore, want)
	}
	ana := page.Items[0]
	if ana.Title != "Ana Okafor" || ana.Type != beeper.ChatSingle || ana.UnreadCount != 1 || ana.Participants.Total != 2 ||
		ana.Preview == nil || ana.Preview.ID != "m-ana-3" || ana.LastActivity.IsZero() {
		t.Fatalf("ana chat = %+v", ana)
	}

	// A new incoming message moves its chat to the top.
	f.Incoming("!climbing-crew:beeper.local", "@jules:beeper.local", "Moved to Friday?")
	page, err = c.Chats(t.Context(), beeper.ChatsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Items[0].ID != "!climbing-crew:beeper.local" || page.Items[0].UnreadCount != 1 {
		t.Fatalf("top chat = %+v", page.Items[0])
	}
	if page, _ := c.Chats(t.Context(), beeper.ChatsQuery{AccountIDs: []string{"nope"}}); len(page.Items) != 0 {
		t.Fatalf("unknown account filter returned %d chats", len(page.Items))
	}
}

func TestChatsPageOlderThenNewerByCursor(t *testing.T) {
	_, c := newFake(t, beepertest.WithPageSize(2))
	ctx := t.Context()
	first, err := c.Chats(ctx, beeper.ChatsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	older, err := c.Chats(ctx, beeper.ChatsQuery{Cursor: first.OldestCursor, Direction: beeper.Before})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Items) != 2 || !first.HasMore || len(older.Items) != 1 || older.HasMore || older.Items[0].ID != "!climbing-crew:beeper.local" {
		t.Fatalf("first=%d/%v older=%+v", len(first.Items), first.HasMore, older)
	}
	newer, err := c.Chats(ctx, beeper.ChatsQuery{Cursor: older.NewestCursor, Direction: beeper.After})
	if err != nil {
		t.Fatal(err)
	}
	if len(newer.Items) != 2 || newer.HasMore || newer.Items[0].ID != first.Items[0].ID {
		t.Fatalf("newer = %+v", newer)
	}
}

func TestSearchChatsFiltersByQueryTypeAndUnread(t *testing.T) {
	f, c := newFake(t)
	ctx := t.Context()
	cases := []struct {
		q    beeper.SearchChatsQuery
		want []string
	}{
		{beeper.SearchChatsQuery{Query: "tomas"}, []string{"!tomas-lindqvist:beeper.local"}},
		{beeper.SearchChatsQuery{Type: "group"}, []string{"!climbing-crew:beeper.local"}},
		{beeper.SearchChatsQuery{UnreadOnly: true, Inbox: "primary"}, []string{"!ana-okafor:beeper.local"}},
		{beeper.SearchChatsQuery{Type: "single", Limit: 1}, []string{"!ana-okafor:beeper.local"}},
		{beeper.SearchChatsQuery{Inbox: "archive"}, nil},
	}
	for _, tc := range cases {
		page, err := c.SearchChats(ctx, tc.q)
		if err != nil {
			t.Fatalf("%+v: %v", tc.q, err)
		}
		var ids []string
		for _, ch := range page.Items {
			ids = append(ids, ch.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("%+v: got %v, want %v", tc.q, ids, tc.want)
		}
	}
	if _, err := c.SearchChats(ctx, beeper.SearchChatsQuery{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if got := f.lastURI(); got != "/v1/chats/search?limit=1" {
		t.Errorf("zero-valued fields were sent: %s", got)
	}
	_, err := c.SearchChats(ctx, beeper.SearchChatsQuery{Limit: 201})
	var apiErr *beeper.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
		t.Fatalf("limit 201: err = %v", err)
	}
}

func TestChatEscapesTheRoomIDInThePath(t *testing.T) {
	f, c := newFake(t)
	chat, err := c.Chat(t.Context(), "!ana-okafor:beeper.local")
	if err != nil {
		t.Fatal(err)
	}
	if chat.ID != "!ana-okafor:beeper.local" || chat.Participants.Items[1].FullName != "Ana Okafor" {
		t.Fatalf("chat = %+v", chat)
	}
	if got := f.lastURI(); got != "/v1/chats/%21ana-okafor:beeper.local" {
		t.Errorf("request URI = %s", got)
	}
}

func TestFakeAcceptsRawAndEncodedChatIDs(t *testing.T) {
	f, _ := newFake(t)
	for _, path := range []string{
		"/v1/chats/!ana-okafor:beeper.local/messages",
		"/v1/chats/%21ana-okafor%3Abeeper.local/messages",
	} {
		req, _ := http.NewRequest(http.MethodGet, f.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page beeper.MessagePage
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil || len(page.Items) != 3 {
			t.Errorf("%s: status %d, %d items, err %v", path, resp.StatusCode, len(page.Items), err)
		}
		if got := f.lastURI(); got != path {
			t.Errorf("sent %s, server saw %s", path, got)
		}
		if resp.Header.Get("X-Beeper-Desktop-Version") == "" {
			t.Errorf("%s: no version header", path)
		}
	}
}

func TestMessagesReturnsSeededHikeThreadOldestFirst(t *testing.T) {
	_, c := newFake(t)
	page, err := c.Messages(t.Context(), "!ana-okafor:beeper.local", beeper.MessagesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if page.HasMore || len(page.Items) != 3 || page.OldestCursor != "1" || page.NewestCursor != "3" {
		t.Fatalf("page = %+v", page)
	}
	for i, m := range page.Items {
		wantID, wantKey := []string{"m-ana-1", "m-ana-2", "m-ana-3"}[i], beeper.SortKey([]string{"1", "2", "3"}[i])
		if m.ID != wantID || m.SortKey != wantKey || m.SenderID != "@ana:beeper.local" || m.IsSender || m.Timestamp.IsZero() {
			t.Errorf("item %d = %+v", i, m)
		}
		if m.IsUnread != (i == 2) {
			t.Errorf("item %d unread = %v", i, m.IsUnread)
		}
	}
	if !strings.Contains(page.Items[0].Text, "Saturday") {
		t.Errorf("first message = %q", page.Items[0].Text)
	}
}

func TestMessagesPageBothDirectionsUntilHasMoreIsFalse(t *testing.T) {
	f, c := newFake(t, beepertest.WithPageSize(2))
	ctx := t.Context()
	chat := "!ana-okafor:beeper.local"
	for i := range 3 {
		f.Incoming(chat, "@ana:beeper.local", "more "+string(rune('a'+i)))
	}
	want := f.Messages(chat) // 6 messages, oldest first

	// collect keeps paging from start in dir until hasMore is false.
	collect := func(start beeper.MessagePage, dir string) []string {
		var seen []string
		page := start
		for range 10 {
			for _, m := range page.Items {
				seen = append(seen, string(m.SortKey))
			}
			cursor := page.OldestCursor
			if dir == beeper.After {
				cursor = page.NewestCursor
			}
			var err error
			if page, err = c.Messages(ctx, chat, beeper.MessagesQuery{Cursor: cursor, Direction: dir}); err != nil {
				t.Fatal(err)
			}
			if !page.HasMore {
				for _, m := range page.Items {
					seen = append(seen, string(m.SortKey))
				}
				return seen
			}
		}
		t.Fatal("pagination does not end")
		return nil
	}

	newest, err := c.Messages(ctx, chat, beeper.MessagesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if !newest.HasMore || len(newest.Items) != 2 || newest.NewestCursor != "6" {
		t.Fatalf("newest page = %+v", newest)
	}
	back := collect(newest, beeper.Before)
	slices.SortFunc(back, func(a, b string) int { return beeper.SortKey(a).Compare(beeper.SortKey(b)) })
	if got, exp := back, keys(want); !slices.Equal(got, exp) {
		t.Fatalf("paging older saw %v, want each of %v once", got, exp)
	}

	oldest, err := c.Messages(ctx, chat, beeper.MessagesQuery{Cursor: "2", Direction: beeper.Before})
	if err != nil {
		t.Fatal(err)
	}
	if len(oldest.Items) != 1 || oldest.HasMore {
		t.Fatalf("before 2 = %+v", oldest)
	}
	fwd := collect(oldest, beeper.After)
	if got, exp := fwd, keys(want); !slices.Equal(got, exp) {
		t.Fatalf("paging newer saw %v, want %v in order", got, exp)
	}
}

func keys(ms []beeper.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.SortKey))
	}
	return out
}

func TestMessageFetchesByIDAndByPendingID(t *testing.T) {
	_, c := newFake(t)
	ctx := t.Context()
	m, err := c.Message(ctx, "!tomas-lindqvist:beeper.local", "m-tomas-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, "Kastanienallee") || m.SenderName != "Tomas Lindqvist" {
		t.Fatalf("message = %+v", m)
	}
	res, err := c.Send(ctx, "!tomas-lindqvist:beeper.local", beeper.SendRequest{Text: "Booked for Tuesday, thanks!"})
	if err != nil {
		t.Fatal(err)
	}
	sent, err := c.Message(ctx, res.ChatID, res.PendingMessageID)
	if err != nil {
		t.Fatal(err)
	}
	if sent.Text != "Booked for Tuesday, thanks!" || !sent.IsSender {
		t.Fatalf("sent = %+v", sent)
	}
}

func TestSendAppendsOwnersReplyAndRecordsIt(t *testing.T) {
	f, c := newFake(t)
	ctx := t.Context()
	chat := "!ana-okafor:beeper.local"
	res, err := c.Send(ctx, chat, beeper.SendRequest{Text: "Saturday works! 8 at the trailhead?", ReplyToMessageID: "m-ana-3"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ChatID != chat || res.PendingMessageID == "" {
		t.Fatalf("result = %+v", res)
	}
	if got := f.lastURI(); got != "/v1/chats/%21ana-okafor:beeper.local/messages" {
		t.Errorf("request URI = %s", got)
	}
	sends := f.Sends()
	if len(sends) != 1 || sends[0].ChatID != chat || sends[0].Text != "Saturday works! 8 at the trailhead?" || sends[0].ReplyToMessageID != "m-ana-3" || sends[0].At.IsZero() {
		t.Fatalf("sends = %+v", sends)
	}
	page, err := c.Messages(ctx, chat, beeper.MessagesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	last := page.Items[len(page.Items)-1]
	if last.SortKey != "4" || !last.IsSender || last.SenderID != "@owner:beeper.local" || last.LinkedMessageID != "m-ana-3" {
		t.Fatalf("last message = %+v", last)
	}
}

func TestSendRejectsEmptyTextWithoutARequest(t *testing.T) {
	f, c := newFake(t)
	if _, err := c.Send(t.Context(), "!ana-okafor:beeper.local", beeper.SendRequest{Text: "  "}); err == nil {
		t.Fatal("empty text was accepted")
	}
	if f.Requests() != 0 {
		t.Fatalf("requests = %d", f.Requests())
	}
}

func TestErrorKinds(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(*beepertest.Fake)
		chatID string
		want   error
		status int
	}{
		{"rejected token is unauthorized", func(f *beepertest.Fake) { f.SetToken("rotated") }, "!ana-okafor:beeper.local", beeper.ErrUnauthorized, 401},
		{"forbidden is unauthorized", func(f *beepertest.Fake) { f.FailNext(403, 1) }, "!ana-okafor:beeper.local", beeper.ErrUnauthorized, 403},
		{"unknown chat is not found", func(*beepertest.Fake) {}, "!nobody:beeper.local", beeper.ErrNotFound, 404},
		{"429 is rate limited", func(f *beepertest.Fake) { f.FailNext(429, 1) }, "!ana-okafor:beeper.local", beeper.ErrRateLimited, 429},
		{"500 is unavailable", func(f *beepertest.Fake) { f.FailNext(500, 1) }, "!ana-okafor:beeper.local", beeper.ErrUnavailable, 500},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t)
			tc.setup(f.Fake)
			_, err := c.Chat(t.Context(), tc.chatID)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var apiErr *beeper.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tc.status || apiErr.Code == "" || apiErr.Message == "" {
				t.Fatalf("api error = %+v", apiErr)
			}
			if errors.Is(err, beeper.ErrOutcomeUnknown) {
				t.Fatal("a status answer is never outcome-unknown")
			}
			if tc.status == 429 && apiErr.RetryAfter != 2*time.Second {
				t.Fatalf("RetryAfter = %v", apiErr.RetryAfter)
			}
		})
	}
}

func TestUnknownMessageIsNotFound(t *testing.T) {
	_, c := newFake(t)
	if _, err := c.Message(t.Context(), "!ana-okafor:beeper.local", "m-nope"); !errors.Is(err, beeper.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestRefusedConnectionIsUnavailableAndASendThereIsADefiniteFailure(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := beeper.NewClient(url, token)
	if _, err := c.Accounts(t.Context()); !errors.Is(err, beeper.ErrUnavailable) {
		t.Fatalf("accounts err = %v", err)
	}
	_, err := c.Send(t.Context(), "!ana-okafor:beeper.local", beeper.SendRequest{Text: "hi"})
	if !errors.Is(err, beeper.ErrUnavailable) || errors.Is(err, beeper.ErrOutcomeUnknown) {
		t.Fatalf("send err = %v: a request that never left is not outcome-unknown", err)
	}
}

func TestSlowReadTimesOutAsUnavailable(t *testing.T) {
	f, _ := newFake(t)
	f.SetDelay(2 * time.Second)
	c := beeper.NewClient(f.URL, token, beeper.WithTimeout(100*time.Millisecond))
	_, err := c.Accounts(t.Context())
	if !errors.Is(err, beeper.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, beeper.ErrOutcomeUnknown) {
		t.Fatalf("err = %v", err)
	}
}

func TestCallerCancellationIsNotReportedAsUnavailable(t *testing.T) {
	f, c := newFake(t)
	f.SetDelay(2 * time.Second)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Accounts(ctx)
	if !errors.Is(err, context.Canceled) || errors.Is(err, beeper.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
}

func TestSendThatTimesOutIsOutcomeUnknownAndWasRecordedOnce(t *testing.T) {
	f, _ := newFake(t)
	f.SetDelay(2 * time.Second)
	c := beeper.NewClient(f.URL, token, beeper.WithTimeout(100*time.Millisecond))
	_, err := c.Send(t.Context(), "!ana-okafor:beeper.local", beeper.SendRequest{Text: "Saturday works!", ReplyToMessageID: "m-ana-3"})
	if !errors.Is(err, beeper.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want outcome unknown", err)
	}
	if n := len(f.Sends()); n != 1 || f.Requests() != 1 {
		t.Fatalf("sends = %d, requests = %d: want exactly one of each, no retry", n, f.Requests())
	}
}

func TestSendWhoseResponseIsDroppedIsOutcomeUnknownAndWasRecordedOnce(t *testing.T) {
	f, c := newFake(t)
	f.DropNextSendResponse()
	_, err := c.Send(t.Context(), "!ana-okafor:beeper.local", beeper.SendRequest{Text: "Saturday works!"})
	if !errors.Is(err, beeper.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want outcome unknown", err)
	}
	if n := len(f.Sends()); n != 1 || f.Requests() != 1 {
		t.Fatalf("sends = %d, requests = %d", n, f.Requests())
	}
	msgs := f.Messages("!ana-okafor:beeper.local")
	if last := msgs[len(msgs)-1]; last.Text != "Saturday works!" || !last.IsSender {
		t.Fatalf("the dropped send was not applied: %+v", last)
	}
	// The next send answers normally again.
	if _, err := c.Send(t.Context(), "!ana-okafor:beeper.local", beeper.SendRequest{Text: "again"}); err != nil {
		t.Fatal(err)
	}
}

func TestSendAnswered500IsADefiniteFailureNotRetried(t *testing.T) {
	f, c := newFake(t)
	f.FailNext(500, 1)
	_, err := c.Send(t.Context(), "!ana-okafor:beeper.local", beeper.SendRequest{Text: "Saturday works!"})
	if err == nil || errors.Is(err, beeper.ErrOutcomeUnknown) || !errors.Is(err, beeper.ErrUnavailable) {
		t.Fatalf("err = %v, want a definite failure", err)
	}
	if n := len(f.Sends()); n != 0 || f.Requests() != 1 {
		t.Fatalf("sends = %d, requests = %d: want none recorded and one request", n, f.Requests())
	}
	if len(f.Messages("!ana-okafor:beeper.local")) != 3 {
		t.Fatal("a failed send changed the chat")
	}
}

// legacyServer answers like an older Beeper: numeric sort keys and cursors, extra
// fields, and error bodies with only "error".
func legacyServer(t *testing.T) *beeper.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/gone") {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"Chat not found"}`)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/limited") {
			w.Header().Set("Retry-After", time.Now().Add(90*time.Second).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `not json`)
			return
		}
		io.WriteString(w, `{"items":[
			{"id":"2","accountID":"a","chatID":"c","senderID":"u","sortKey":10,"timestamp":"2025-08-28T11:04:29.621Z","reactions":[{"x":1}],"futureField":{"a":1}},
			{"id":"1","accountID":"a","chatID":"c","senderID":"u","sortKey":9,"timestamp":"2025-08-28T11:04:28.000Z","text":null}
		],"hasMore":false,"oldestCursor":9,"newestCursor":"10","unknown":true}`)
	}))
	t.Cleanup(srv.Close)
	return beeper.NewClient(srv.URL, token)
}

func TestLenientDecodingOfNumericSortKeysAndUnknownFields(t *testing.T) {
	c := legacyServer(t)
	page, err := c.Messages(t.Context(), "c", beeper.MessagesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].SortKey != "9" || page.Items[1].SortKey != "10" || page.OldestCursor != "9" || page.NewestCursor != "10" {
		t.Fatalf("page = %+v, want numeric keys as strings, sorted numerically", page)
	}
	if page.Items[1].Timestamp.Nanosecond() != 621_000_000 {
		t.Fatalf("timestamp = %v", page.Items[1].Timestamp)
	}
}

func TestLenientErrorBodies(t *testing.T) {
	c := legacyServer(t)
	_, err := c.Chat(t.Context(), "gone")
	var apiErr *beeper.APIError
	if !errors.Is(err, beeper.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Message != "Chat not found" {
		t.Fatalf("err = %v (%+v), want the legacy error text", err, apiErr)
	}
	_, err = c.Chat(t.Context(), "limited")
	if !errors.Is(err, beeper.ErrRateLimited) || !errors.As(err, &apiErr) || apiErr.RetryAfter < 80*time.Second || apiErr.RetryAfter > 90*time.Second {
		t.Fatalf("err = %v, RetryAfter from an HTTP date = %v", err, apiErr.RetryAfter)
	}
}

func TestSortKeyComparesDecimalKeysNumerically(t *testing.T) {
	for _, tc := range []struct {
		a, b beeper.SortKey
		want int
	}{{"9", "10", -1}, {"10", "9", 1}, {"007", "7", 0}, {"b", "a", 1}, {"1", "1", 0}} {
		if got := tc.a.Compare(tc.b); got != tc.want {
			t.Errorf("%q vs %q = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestFromEnvDefaultsToTheLocalDesktopAPI(t *testing.T) {
	t.Setenv("BEEPER_BASE_URL", "")
	t.Setenv("BEEPER_DESKTOP_BASE_URL", "")
	t.Setenv("BEEPER_ACCESS_TOKEN", " tok \n")
	if u, tok := beeper.FromEnv(); u != "http://localhost:23373" || tok != "tok" || beeper.EnvBaseURL() != "" {
		t.Fatalf("FromEnv = %q, %q", u, tok)
	}
}

func TestFromEnvReadsSDK5BaseURLBeforeTheSDK4Name(t *testing.T) {
	t.Setenv("BEEPER_BASE_URL", "")
	t.Setenv("BEEPER_DESKTOP_BASE_URL", "http://127.0.0.1:9999")
	if u, _ := beeper.FromEnv(); u != "http://127.0.0.1:9999" {
		t.Fatalf("SDK 4's BEEPER_DESKTOP_BASE_URL alone: FromEnv url = %q", u)
	}
	t.Setenv("BEEPER_BASE_URL", " http://127.0.0.1:8888 ")
	if u, _ := beeper.FromEnv(); u != "http://127.0.0.1:8888" {
		t.Fatalf("with SDK 5's BEEPER_BASE_URL set too: FromEnv url = %q, want BEEPER_BASE_URL", u)
	}
}

func TestReadTokenFileRefusesFilesOthersCanRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // WriteFile's mode is subject to umask
			t.Fatal(err)
		}
		return p
	}
	if tok, err := beeper.ReadTokenFile(write("ok", "secret\n", 0o600)); err != nil || tok != "secret" {
		t.Fatalf("0600: %q, %v", tok, err)
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		_, err := beeper.ReadTokenFile(write("open", "secret", mode))
		if err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %04o: err = %v", mode, err)
		}
	}
	if _, err := beeper.ReadTokenFile(write("empty", " \n", 0o600)); err == nil {
		t.Error("empty token file accepted")
	}
	if _, err := beeper.ReadTokenFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing token file accepted")
	}
}

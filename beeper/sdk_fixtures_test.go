package beeper_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/beeper"
)

// messageFixtures are testdata/message-*.json, one per send state the SDK 5
// types allow plus an older Beeper's string and no status at all, oldest first.
var messageFixtures = []string{"legacy-string", "no-status", "success", "pending", "fail-retriable", "fail-permanent"}

func fixture(t *testing.T, name string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatalf("testdata/%s.json is not valid JSON", name)
	}
	return b
}

// withPreview is a ChatListResponse: the chat fixture plus a message fixture as preview.
func withPreview(t *testing.T, chat, msg string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(fixture(t, chat), &m); err != nil {
		t.Fatal(err)
	}
	m["preview"] = fixture(t, "message-"+msg)
	b, _ := json.Marshal(m)
	return b
}

// sdkServer answers hearth's routes with the fixtures, as Beeper Desktop
// would if it returned exactly what the SDK 5 types declare.
func sdkServer(t *testing.T) *beeper.Client {
	t.Helper()
	var msgs []json.RawMessage
	for _, n := range messageFixtures {
		msgs = append(msgs, fixture(t, "message-"+n))
	}
	page := func(items []json.RawMessage, oldest, newest any) any {
		return map[string]any{"items": items, "hasMore": oldest != nil, "oldestCursor": oldest, "newestCursor": newest}
	}
	chatList := []json.RawMessage{withPreview(t, "chat", "fail-retriable"), withPreview(t, "chat-nulls", "legacy-string")}
	routes := map[string]any{
		"GET /v1/info":     fixture(t, "info"),
		"GET /v1/accounts": fixture(t, "accounts"),
		"GET /v1/chats":    page(chatList, "1746609800000", "1746609900000"),
		// Search answers null cursors, as CursorSearch declares them.
		"GET /v1/chats/search":                                   page([]json.RawMessage{fixture(t, "chat"), fixture(t, "chat-nulls")}, nil, nil),
		"GET /v1/chats/!NCdzlIaMjZUmvmvyHU:beeper.com":           fixture(t, "chat"),
		"GET /v1/chats/!signal_adamvy:local-signal.localhost":    fixture(t, "chat-nulls"),
		"GET /v1/chats/!NCdzlIaMjZUmvmvyHU:beeper.com/messages":  page(msgs, "821744000", "821744082"),
		"POST /v1/chats/!NCdzlIaMjZUmvmvyHU:beeper.com/messages": fixture(t, "send"),
		"POST /v1/chats/!NCdzlIaMjZUmvmvyHU:beeper.com/read":     fixture(t, "chat"),
		"POST /v1/chats/!NCdzlIaMjZUmvmvyHU:beeper.com/archive":  nil, // void: 204
		"GET /v1/messages/search": map[string]any{"items": msgs, "hasMore": false, "oldestCursor": nil, "newestCursor": nil,
			"chats": map[string]json.RawMessage{"!NCdzlIaMjZUmvmvyHU:beeper.com": fixture(t, "chat")}},
	}
	for _, n := range messageFixtures {
		var m struct{ ID string }
		json.Unmarshal(fixture(t, "message-"+n), &m)
		routes["GET /v1/chats/!NCdzlIaMjZUmvmvyHU:beeper.com/messages/"+m.ID] = fixture(t, "message-"+n)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := routes[r.Method+" "+r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"code": "NOT_FOUND", "message": r.Method + " " + r.URL.Path})
			return
		}
		if body == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	return beeper.NewClient(srv.URL, token)
}

func TestClientDecodesEverySDK5MessageState(t *testing.T) {
	c := sdkServer(t)
	page, err := c.Messages(t.Context(), "!NCdzlIaMjZUmvmvyHU:beeper.com", beeper.MessagesQuery{})
	if err != nil {
		t.Fatalf("messages: %v", err)
	}
	if len(page.Items) != len(messageFixtures) || page.OldestCursor != "821744000" || !page.HasMore {
		t.Fatalf("page = %+v", page)
	}
	want := []struct {
		state   beeper.SendState
		status  string
		text    string
		statusT string // the send status timestamp, "" for none
	}{
		{beeper.SendFailedForGood, "failed", "failed", ""},
		{beeper.SendUnreported, "", "", ""},
		{beeper.SendSucceeded, beeper.StatusSuccess, beeper.StatusSuccess, "2026-05-07T09:15:03.5Z"},
		{beeper.SendInProgress, beeper.StatusPending, beeper.StatusPending, "2026-05-07T09:20:00.25Z"},
		{beeper.SendRetrying, beeper.StatusFailRetriable, "Waiting for the phone to come online", "2026-05-07T09:21:45Z"},
		{beeper.SendFailedForGood, beeper.StatusFailPermanent, "You are no longer a member of this group", "2026-05-07T09:23:21Z"},
	}
	for i, m := range page.Items {
		got, err := c.Message(t.Context(), m.ChatID, m.ID)
		if err != nil {
			t.Fatalf("message %s (%s): %v", m.ID, messageFixtures[i], err)
		}
		if got.ID != m.ID || got.Timestamp.IsZero() || !strings.HasPrefix(got.AccountID, "local-whatsapp") || got.SortKey != m.SortKey {
			t.Errorf("%s: %+v", messageFixtures[i], got)
		}
		w := want[i]
		st := got.SendStatus
		var status, statusT string
		if st != nil {
			status = st.Status
			if !st.Timestamp.IsZero() {
				statusT = st.Timestamp.Format(time.RFC3339Nano)
			}
		}
		if st.State() != w.state || status != w.status || st.Text() != w.text || statusT != w.statusT {
			t.Errorf("%s: sendStatus %+v: state %d text %q, want %+v", messageFixtures[i], st, st.State(), st.Text(), w)
		}
	}
	success, permanent := page.Items[2], page.Items[5]
	if success.SenderName != "Sam Rivera" || !success.IsSender || success.LinkedMessageID != "1343990" || success.Type != "TEXT" ||
		success.EditedTimestamp.IsZero() || !slices.Equal(success.SendStatus.DeliveredToUsers, []string{"@ana:local-whatsapp.localhost"}) {
		t.Errorf("success message: %+v", success)
	}
	if permanent.SendStatus.Reason != "M_FORBIDDEN" || permanent.SendStatus.InternalError == "" {
		t.Errorf("permanent failure: %+v", permanent.SendStatus)
	}
	if incoming := page.Items[1]; !incoming.IsUnread || incoming.IsSender || incoming.SendStatus != nil {
		t.Errorf("incoming message: %+v", incoming)
	}
}

func TestSendStatusToleratesOddTimestampsAndUnknownStatuses(t *testing.T) {
	for _, tc := range []struct {
		body  string
		state beeper.SendState
	}{
		{`{"status":"SUCCESS","timestamp":1746609302118}`, beeper.SendSucceeded},
		{`{"status":"PENDING","timestamp":"yesterday"}`, beeper.SendInProgress},
		{`{"status":"QUEUED_ON_MARS","timestamp":"2026-05-07T09:15:03.500Z"}`, beeper.SendUnreported},
		{`"FAIL_RETRIABLE"`, beeper.SendRetrying},
		{`"error"`, beeper.SendFailedForGood},
		{`"sent"`, beeper.SendSucceeded},
		{`null`, beeper.SendUnreported},
		{`true`, beeper.SendUnreported},
		{`[{"status":"FAIL_PERMANENT"}]`, beeper.SendUnreported},
	} {
		var m beeper.Message
		if err := json.Unmarshal([]byte(`{"id":"1","sortKey":"1","timestamp":"2026-05-07T09:15:03.500Z","sendStatus":`+tc.body+`}`), &m); err != nil {
			t.Errorf("%s: %v", tc.body, err)
			continue
		}
		if got := m.SendStatus.State(); got != tc.state {
			t.Errorf("%s: state %d, want %d", tc.body, got, tc.state)
		}
	}
}

func TestClientDecodesSDK5ChatsWithPreviewAccountsAndInfo(t *testing.T) {
	c := sdkServer(t)
	ctx := t.Context()
	chats, err := c.Chats(ctx, beeper.ChatsQuery{})
	if err != nil {
		t.Fatalf("chats: %v", err)
	}
	if len(chats.Items) != 2 || chats.Items[0].Preview == nil || chats.Items[1].Preview == nil || chats.OldestCursor != "1746609800000" {
		t.Fatalf("chats = %+v", chats)
	}
	crew, adam := chats.Items[0], chats.Items[1]
	if crew.Preview.SendStatus.State() != beeper.SendRetrying || adam.Preview.SendStatus.State() != beeper.SendFailedForGood {
		t.Errorf("previews: %+v / %+v", crew.Preview.SendStatus, adam.Preview.SendStatus)
	}
	if crew.Network != "WhatsApp" || crew.Type != beeper.ChatGroup || crew.UnreadCount != 2 || !crew.IsMuted || !crew.IsPinned ||
		crew.Description != "Thursday bouldering" || crew.LocalChatID != "1234" || crew.LastReadMessageSortKey != "821744070" ||
		crew.UnreadMentionsCount != 1 || crew.LastActivity.IsZero() || crew.Participants.Total != 3 || !crew.Participants.HasMore ||
		crew.Participants.Items[1].PhoneNumber != "+4915112345678" {
		t.Errorf("crew chat: %+v", crew)
	}
	if adam.Description != "" || adam.LocalChatID != "" || adam.Type != beeper.ChatSingle || adam.Network != "Signal" {
		t.Errorf("a chat with nulls: %+v", adam)
	}
	found, err := c.SearchChats(ctx, beeper.SearchChatsQuery{Query: "a"})
	if err != nil || len(found.Items) != 2 || found.HasMore || found.OldestCursor != "" {
		t.Fatalf("search = %+v, %v", found, err)
	}
	for _, id := range []string{"!NCdzlIaMjZUmvmvyHU:beeper.com", "!signal_adamvy:local-signal.localhost"} {
		if ch, err := c.Chat(ctx, id); err != nil || ch.ID != id {
			t.Fatalf("chat %s = %+v, %v", id, ch, err)
		}
	}
	accts, err := c.Accounts(ctx)
	if err != nil || len(accts) != 2 {
		t.Fatalf("accounts = %+v, %v", accts, err)
	}
	wantBridges := []beeper.Bridge{{ID: "local-whatsapp", Provider: beeper.BridgeLocal, Type: "whatsapp"}, {ID: "discordgo", Provider: beeper.BridgeCloud, Type: "discordgo"}}
	for i, a := range accts {
		if a.Bridge != wantBridges[i] {
			t.Errorf("account %s bridge %+v, want %+v", a.AccountID, a.Bridge, wantBridges[i])
		}
	}
	if accts[0].Network != "WhatsApp" || !accts[0].User.IsSelf || accts[0].User.PhoneNumber != "+14155552671" || accts[1].Network != "" || accts[1].User.Username != "@sam" {
		t.Errorf("accounts = %+v", accts)
	}
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatalf("info: %v", err)
	}
	if info.App.Version != "4.2.810" || info.App.BundleID != "com.automattic.beeper.desktop" || info.Platform.OS != "darwin" || info.Platform.Release != "24.5.0" ||
		info.Server.Port != 23373 || !info.Server.MCPEnabled || info.Server.Status != "running" || info.Server.BaseURL != "http://localhost:23373" ||
		info.Endpoints.WSEvents != "ws://localhost:23373/v1/ws" || info.Endpoints.OAuth.TokenEndpoint != "http://localhost:23373/oauth/token" {
		t.Errorf("info = %+v", info)
	}
	read, err := c.MarkRead(ctx, "!NCdzlIaMjZUmvmvyHU:beeper.com", "1343993")
	if err != nil || read.ID != "!NCdzlIaMjZUmvmvyHU:beeper.com" {
		t.Fatalf("mark read = %+v, %v", read, err)
	}
	if err := c.Archive(ctx, "!NCdzlIaMjZUmvmvyHU:beeper.com", true); err != nil {
		t.Fatalf("archive answered 204: %v", err)
	}
	found2, err := c.SearchMessages(ctx, beeper.SearchMessagesQuery{Query: "saturday"})
	if err != nil || len(found2.Items) != len(messageFixtures) || found2.Chats["!NCdzlIaMjZUmvmvyHU:beeper.com"].Title != "Climbing crew" || found2.OldestCursor != "" {
		t.Fatalf("message search = %+v, %v", found2, err)
	}
	res, err := c.Send(ctx, "!NCdzlIaMjZUmvmvyHU:beeper.com", beeper.SendRequest{Text: "On my way"})
	if err != nil || res.PendingMessageID != "m1746609302118" {
		t.Fatalf("send = %+v, %v", res, err)
	}
}

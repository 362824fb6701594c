package beeper_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
)

func chatIDs(cs []beeper.Chat) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

func TestFakeAccountsCarryTheirBridgeAndInfoDescribesTheServer(t *testing.T) {
	f, c := newFake(t)
	accts, err := c.Accounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := (beeper.Bridge{ID: "local-whatsapp", Provider: beeper.BridgeLocal, Type: "whatsapp"}); len(accts) != 1 || accts[0].Bridge != want {
		t.Fatalf("accounts = %+v, want bridge %+v", accts, want)
	}
	info, err := c.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if info.App.BundleID == "" || info.Platform.OS == "" || info.Platform.Arch == "" || info.Server.Status != "running" ||
		info.Server.BaseURL != f.URL || info.Server.Hostname != "127.0.0.1" || info.Server.Port == 0 ||
		info.Endpoints.Spec == "" || info.Endpoints.WSEvents == "" || info.Endpoints.MCP == "" || info.Endpoints.OAuth.TokenEndpoint == "" {
		t.Fatalf("info = %+v", info)
	}
}

func TestFakeChatSearchHonoursScopeMutedAccountsAndLastActivity(t *testing.T) {
	_, c := newFake(t)
	ctx := t.Context()
	crew, tomas, ana := beepertest.GroupChatID, beepertest.TomasChatID, beepertest.AnaChatID
	// Seeded activity: Ana 1 h ago, Tomas 28 h ago, the (muted) crew 48 h ago.
	base := beepertest.BaseTime
	cases := []struct {
		name string
		q    beeper.SearchChatsQuery
		want []string
	}{
		{"titles only", beeper.SearchChatsQuery{Query: "ana", Scope: beeper.ScopeTitles}, []string{ana}},
		{"participants", beeper.SearchChatsQuery{Query: "ana", Scope: beeper.ScopeParticipants}, []string{ana, crew}},
		{"no scope: titles, network and participants", beeper.SearchChatsQuery{Query: "ANA"}, []string{ana, crew}},
		{"network is part of the title scope", beeper.SearchChatsQuery{Query: "whatsapp", Scope: beeper.ScopeTitles}, []string{ana, tomas, crew}},
		{"every word must match", beeper.SearchChatsQuery{Query: "climbing jules", Scope: beeper.ScopeTitles}, nil},
		{"every word, across names", beeper.SearchChatsQuery{Query: "jules ana", Scope: beeper.ScopeParticipants}, []string{crew}},
		{"muted included by default", beeper.SearchChatsQuery{}, []string{ana, tomas, crew}},
		{"muted excluded", beeper.SearchChatsQuery{ExcludeMuted: true}, []string{ana, tomas}},
		{"accounts", beeper.SearchChatsQuery{AccountIDs: []string{"nope"}}, nil},
		{"active after", beeper.SearchChatsQuery{LastActivityAfter: base.Add(-30 * time.Hour)}, []string{ana, tomas}},
		{"active before", beeper.SearchChatsQuery{LastActivityBefore: base.Add(-2 * time.Hour)}, []string{tomas, crew}},
		{"window", beeper.SearchChatsQuery{LastActivityAfter: base.Add(-30 * time.Hour), LastActivityBefore: base.Add(-2 * time.Hour)}, []string{tomas}},
	}
	for _, tc := range cases {
		page, err := c.SearchChats(ctx, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := chatIDs(page.Items); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, bad := range []beeper.SearchChatsQuery{{Scope: "everything"}, {Inbox: "spam"}, {Type: "channel"}} {
		_, err := c.SearchChats(ctx, bad)
		var apiErr *beeper.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
			t.Errorf("%+v: err = %v, want 400", bad, err)
		}
	}
}

func TestFakeChatSearchPagesByCursorWithLimit(t *testing.T) {
	_, c := newFake(t)
	var all []string
	q := beeper.SearchChatsQuery{Limit: 1}
	for range 5 {
		page, err := c.SearchChats(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, chatIDs(page.Items)...)
		if !page.HasMore {
			break
		}
		q.Cursor = page.OldestCursor
	}
	if want := []string{beepertest.AnaChatID, beepertest.TomasChatID, beepertest.GroupChatID}; !slices.Equal(all, want) {
		t.Fatalf("pages gave %v, want %v", all, want)
	}
}

func TestFakeSendStatusMovesFromPendingToSuccessUnderTheFinalID(t *testing.T) {
	f, c := newFake(t)
	ctx := t.Context()
	f.HoldSends(true)
	res, err := c.Send(ctx, beepertest.AnaChatID, beeper.SendRequest{Text: "On my way"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Message(ctx, beepertest.AnaChatID, res.PendingMessageID)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != res.PendingMessageID || m.SendStatus.State() != beeper.SendInProgress || m.SendStatus.Timestamp.IsZero() || !m.IsSender {
		t.Fatalf("held send reads %+v (status %+v), want PENDING under the pending ID", m, m.SendStatus)
	}
	if _, err := f.SetSendStatus(beepertest.AnaChatID, res.PendingMessageID, beeper.StatusFailRetriable, "phone offline"); err != nil {
		t.Fatal(err)
	}
	if m, _ = c.Message(ctx, beepertest.AnaChatID, res.PendingMessageID); m.SendStatus.State() != beeper.SendRetrying || m.SendStatus.Message != "phone offline" {
		t.Fatalf("after FAIL_RETRIABLE: %+v", m.SendStatus)
	}
	if _, err := f.SetSendStatus(beepertest.AnaChatID, res.PendingMessageID, beeper.StatusSuccess, ""); err != nil {
		t.Fatal(err)
	}
	m, err = c.Message(ctx, beepertest.AnaChatID, res.PendingMessageID)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID == res.PendingMessageID || m.SendStatus.State() != beeper.SendSucceeded || !slices.Equal(m.SendStatus.DeliveredToUsers, []string{"@ana:beeper.local"}) {
		t.Fatalf("after SUCCESS: %+v (status %+v), want a final ID, delivered to Ana", m, m.SendStatus)
	}
	if byFinal, err := c.Message(ctx, beepertest.AnaChatID, m.ID); err != nil || byFinal.ID != m.ID {
		t.Fatalf("by final ID: %+v, %v", byFinal, err)
	}
	if _, err := f.SetSendStatus(beepertest.AnaChatID, "m-ana-1", beeper.StatusSuccess, ""); err == nil {
		t.Fatal("the status of Ana's own message was set")
	}
}

func TestFakeSendsSucceedAtOnceUnlessHeld(t *testing.T) {
	f, c := newFake(t)
	ctx := t.Context()
	res, err := c.Send(ctx, beepertest.AnaChatID, beeper.SendRequest{Text: "Done"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Message(ctx, beepertest.AnaChatID, res.PendingMessageID)
	if err != nil || m.SendStatus.State() != beeper.SendSucceeded || m.ID == res.PendingMessageID {
		t.Fatalf("unheld send: %+v, %v", m, err)
	}
	f.HoldSends(true)
	res, _ = c.Send(ctx, beepertest.AnaChatID, beeper.SendRequest{Text: "Nope"})
	if _, err := f.SetSendStatus(beepertest.AnaChatID, res.PendingMessageID, beeper.StatusFailPermanent, "blocked by the recipient"); err != nil {
		t.Fatal(err)
	}
	page, _ := c.Messages(ctx, beepertest.AnaChatID, beeper.MessagesQuery{})
	last := page.Items[len(page.Items)-1]
	if last.ID != res.PendingMessageID || last.SendStatus.State() != beeper.SendFailedForGood || last.SendStatus.Text() != "blocked by the recipient" {
		t.Fatalf("failed send in the list: %+v (%+v)", last, last.SendStatus)
	}
	for _, m := range page.Items {
		if !m.IsSender && m.SendStatus != nil {
			t.Errorf("incoming %s has a send status", m.ID)
		}
	}
}

func TestFakeMarkReadThroughAMessageAndWholeChat(t *testing.T) {
	f, c := newFake(t)
	ctx := t.Context()
	f.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Also: bring water")
	chat, err := c.MarkRead(ctx, beepertest.AnaChatID, "m-ana-3")
	if err != nil {
		t.Fatal(err)
	}
	if chat.UnreadCount != 1 || chat.LastReadMessageSortKey != "3" || chat.Preview != nil {
		t.Fatalf("read through m-ana-3: %+v", chat)
	}
	if chat, err = c.MarkRead(ctx, beepertest.AnaChatID, ""); err != nil || chat.UnreadCount != 0 || chat.LastReadMessageSortKey != "4" {
		t.Fatalf("read all: %+v, %v", chat, err)
	}
	page, _ := c.Messages(ctx, beepertest.AnaChatID, beeper.MessagesQuery{})
	for _, m := range page.Items {
		if m.IsUnread {
			t.Errorf("%s still unread", m.ID)
		}
	}
	if _, err := c.MarkRead(ctx, beepertest.AnaChatID, "no-such-message"); !errors.Is(err, beeper.ErrNotFound) {
		t.Fatalf("unknown message: %v", err)
	}
	if _, err := c.MarkRead(ctx, "!nope:beeper.local", ""); !errors.Is(err, beeper.ErrNotFound) {
		t.Fatalf("unknown chat: %v", err)
	}
}

func TestFakeArchiveMovesAChatBetweenInboxes(t *testing.T) {
	_, c := newFake(t)
	ctx := t.Context()
	if err := c.Archive(ctx, beepertest.TomasChatID, true); err != nil {
		t.Fatal(err)
	}
	inbox := func(name string) []string {
		page, err := c.SearchChats(ctx, beeper.SearchChatsQuery{Inbox: name})
		if err != nil {
			t.Fatal(err)
		}
		return chatIDs(page.Items)
	}
	if got := inbox("archive"); !slices.Equal(got, []string{beepertest.TomasChatID}) {
		t.Fatalf("archive = %v", got)
	}
	if got := inbox("primary"); slices.Contains(got, beepertest.TomasChatID) {
		t.Fatalf("primary still has Tomas: %v", got)
	}
	if chat, _ := c.Chat(ctx, beepertest.TomasChatID); !chat.IsArchived {
		t.Fatal("the chat does not say it is archived")
	}
	if err := c.Archive(ctx, beepertest.TomasChatID, false); err != nil {
		t.Fatal(err)
	}
	if got := inbox("archive"); len(got) != 0 {
		t.Fatalf("archive after unarchiving = %v", got)
	}
}

func TestFakeSearchesMessagesAcrossChats(t *testing.T) {
	_, c := newFake(t, beepertest.WithPageSize(2))
	ctx := t.Context()
	ids := func(p beeper.MessageSearchPage) []string {
		var out []string
		for _, m := range p.Items {
			out = append(out, m.ID)
		}
		return out
	}
	base := beepertest.BaseTime
	cases := []struct {
		name string
		q    beeper.SearchMessagesQuery
		want []string
	}{
		{"words in any order, newest first", beeper.SearchMessagesQuery{Query: "saturday"}, []string{"m-ana-2", "m-ana-1"}},
		{"all words must match", beeper.SearchMessagesQuery{Query: "saturday hike"}, []string{"m-ana-1"}},
		{"sender me", beeper.SearchMessagesQuery{Sender: "me"}, []string{"m-tomas-2", "m-crew-3"}},
		{"sender others in a chat", beeper.SearchMessagesQuery{Sender: "others", ChatIDs: []string{beepertest.TomasChatID}}, []string{"m-tomas-3", "m-tomas-1"}},
		{"sender by ID", beeper.SearchMessagesQuery{Sender: "@jules:beeper.local"}, []string{"m-crew-1"}},
		{"group chats", beeper.SearchMessagesQuery{ChatType: beeper.ChatGroup, Limit: 5}, []string{"m-crew-3", "m-crew-2", "m-crew-1"}},
		{"date window", beeper.SearchMessagesQuery{DateAfter: base.Add(-30 * time.Hour), DateBefore: base.Add(-16 * time.Hour)}, []string{"m-tomas-3", "m-tomas-2"}},
		{"muted excluded", beeper.SearchMessagesQuery{Query: "in", ExcludeMuted: true}, nil},
		{"media: the fake has none", beeper.SearchMessagesQuery{MediaTypes: []string{"any"}}, nil},
	}
	for _, tc := range cases {
		page, err := c.SearchMessages(ctx, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := ids(page); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
		for _, m := range page.Items {
			if page.Chats[m.ChatID].ID != m.ChatID {
				t.Errorf("%s: chats lacks %s", tc.name, m.ChatID)
			}
		}
	}
	// Paging older by cursor reaches every message once.
	var all []string
	q := beeper.SearchMessagesQuery{}
	for range 10 {
		page, err := c.SearchMessages(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ids(page)...)
		if !page.HasMore {
			break
		}
		q.Cursor = page.OldestCursor
	}
	if len(all) != 9 || all[0] != "m-ana-3" || all[8] != "m-crew-1" {
		t.Fatalf("paged search = %v", all)
	}
}

func TestASendRefusedForScopeSaysTheTokenNeedsSensitiveActions(t *testing.T) {
	f, c := newFake(t)
	f.FailNext(http.StatusForbidden, 1)
	_, err := c.Send(t.Context(), beepertest.AnaChatID, beeper.SendRequest{Text: "Hi"})
	if !errors.Is(err, beeper.ErrUnauthorized) || errors.Is(err, beeper.ErrOutcomeUnknown) || !strings.Contains(err.Error(), `"Allow sensitive actions"`) {
		t.Fatalf("err = %v", err)
	}
	// Reading is not a sensitive action: no such advice there.
	f.FailNext(http.StatusForbidden, 1)
	if _, err := c.Chats(t.Context(), beeper.ChatsQuery{}); err == nil || strings.Contains(err.Error(), "sensitive") {
		t.Fatalf("chats err = %v", err)
	}
}

func TestFocusOpensTheChatInBeeperWithTheDraftTextAndTheFakeRecordsIt(t *testing.T) {
	f, c := newFake(t)
	ctx := t.Context()
	res, err := c.Focus(ctx, beeper.FocusRequest{ChatID: beepertest.AnaChatID, MessageID: "m-ana-3", DraftText: "Saturday at 8?"})
	if err != nil || !res.Success {
		t.Fatalf("focus = %+v, %v", res, err)
	}
	if _, err := c.Focus(ctx, beeper.FocusRequest{}); err != nil {
		t.Fatalf("focus with nothing (only opens the app): %v", err)
	}
	got := f.Focuses()
	want := []beepertest.RecordedFocus{{ChatID: beepertest.AnaChatID, MessageID: "m-ana-3", DraftText: "Saturday at 8?"}, {}}
	if len(got) != 2 || got[0].ChatID != want[0].ChatID || got[0].MessageID != want[0].MessageID || got[0].DraftText != want[0].DraftText || got[1].ChatID != "" {
		t.Fatalf("recorded focuses %+v, want %+v", got, want)
	}
	if _, err := c.Focus(ctx, beeper.FocusRequest{ChatID: "!nobody:beeper.local", DraftText: "x"}); !errors.Is(err, beeper.ErrNotFound) {
		t.Fatalf("focus on an unknown chat: %v, want ErrNotFound", err)
	}
	if len(f.Sends()) != 0 {
		t.Fatal("a focus sent a message")
	}
}

func TestFakeAddChatMakesANewChatWithAnIncomingMessage(t *testing.T) {
	f, c := newFake(t)
	chat := f.AddChat("!long:beeper.local", "Maximiliana Featherstonehaughton", "Hello there")
	if chat.ID != "!long:beeper.local" || chat.UnreadCount != 1 {
		t.Fatalf("added %+v", chat)
	}
	page, err := c.Chats(t.Context(), beeper.ChatsQuery{})
	if err != nil || page.Items[0].ID != "!long:beeper.local" || page.Items[0].Preview == nil || page.Items[0].Preview.IsSender {
		t.Fatalf("chats %+v, %v", page.Items, err)
	}
}

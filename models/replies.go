package models

import (
	"cmp"
	"context"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/instant"
	"hearth/internal/wording"
)

// nullID is an ID column that is NULL when empty: a reference with no
// target (an own reply's draft), which a foreign key must not see as ”.
type nullID string

// Value stores "" as NULL.
func (n nullID) Value() (driver.Value, error) {
	if n == "" {
		return nil, nil
	}
	return string(n), nil
}

// Scan reads NULL as "".
func (n *nullID) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*n = ""
	case string:
		*n = nullID(x)
	case []byte:
		*n = nullID(x)
	default:
		return fmt.Errorf("models: an ID column holds %T", v)
	}
	return nil
}

// Reply actions: what the owner decided about a chat's reply (owner-owned,
// never written by a publication).
const (
	// ActionNoReplyNeeded is the owner's word that the chat needs no reply.
	ActionNoReplyNeeded = "no-reply-needed"
	// ActionRemindLater hides an owed reply until a date.
	ActionRemindLater = "remind-later"
	// ActionHandedOff opened Beeper Desktop on the chat with the text: the
	// owner finishes it there. It is never a send.
	ActionHandedOff = "handed-off"
	// ActionOwnReply is the owner's own reply, sent in place of the draft.
	ActionOwnReply = "own-reply"
)

// ReplyAction is one owner decision about a chat's reply, per draft it
// concerns (DraftID empty when the chat had none).
type ReplyAction struct {
	ID        int64 `gorm:"primaryKey"`
	ChatID    string
	AccountID string
	DraftID   nullID
	Action    string
	Until     string
	Body      string
	SendID    *int64
	Revision  int64
	CreatedAt time.Time
}

// OwedAfter is how long a chat's last message from someone else may wait
// for an answer before it shows as owed (serve's --owed-after).
const OwedAfter = 24 * time.Hour

// OwedWindow bounds how old an unanswered message may be and still count
// as owed: older ones were let go, and the watch's first read must not
// list every chat whose other side spoke last, years ago.
const OwedWindow = 30 * 24 * time.Hour

// recordReplyAction stores act for each of draftIDs (one row without a
// draft when there are none), bumping the revision.
func recordReplyAction(t *txn, chatID, accountID string, draftIDs []string, act ReplyAction) error {
	rev, err := t.bump()
	if err != nil {
		return err
	}
	t.touch("chat:" + chatID)
	targets := draftIDs
	if len(targets) == 0 {
		targets = []string{""}
	}
	for _, d := range targets {
		row := act
		row.ChatID, row.AccountID, row.DraftID, row.Revision, row.CreatedAt = chatID, accountID, nullID(d), rev, t.now.UTC()
		if err := t.Create(&row).Error; err != nil {
			return err
		}
		if d != "" {
			t.touch("draft:" + d)
		}
	}
	return nil
}

// unsentDrafts are the live drafts of a chat with no send that went out or
// is still going: the ones an owner decision about the chat concerns. A
// draft a decision already settled (declined, replaced) keeps that fate,
// and the chat's settled history is not read.
func unsentDrafts(t *txn, chatID string) ([]string, error) {
	var ids []string
	err := t.Raw(`SELECT d.id FROM reply_drafts d INDEXED BY reply_drafts_chat_settled
		WHERE d.chat_id = ? AND d.settled_at IS NULL AND d.retracted_at IS NULL
		AND NOT EXISTS (SELECT 1 FROM sends s WHERE s.draft_id = d.id AND s.status IN ?) ORDER BY d.id`,
		chatID, []string{SendSent, SendPending, SendUnknown}).Scan(&ids).Error
	return ids, err
}

// settleDrafts marks the drafts an owner decision settled (declined,
// replaced by the owner's own reply); one settled before keeps its time.
func settleDrafts(t *txn, draftIDs []string) error {
	if len(draftIDs) == 0 {
		return nil
	}
	return t.Model(&ReplyDraft{}).Where("id IN ? AND settled_at IS NULL", draftIDs).UpdateColumn("settled_at", t.now).Error
}

// replaceDrafts records the owner's own reply (act: its send, or the text
// the owner typed in Beeper) as replacing drafts of a chat: each gets an
// own-reply action and is settled. It returns their open reply
// activities, for the caller to complete under its cause.
func replaceDrafts(t *txn, chatID, accountID string, drafts []string, act ReplyAction) ([]string, error) {
	act.Action = ActionOwnReply
	if err := recordReplyAction(t, chatID, accountID, drafts, act); err != nil {
		return nil, err
	}
	if err := settleDrafts(t, drafts); err != nil {
		return nil, err
	}
	return openReplyActivities(t, drafts)
}

// openReplyActivities are the open, live reply activities naming drafts.
func openReplyActivities(t *txn, draftIDs []string) ([]string, error) {
	if len(draftIDs) == 0 {
		return nil, nil
	}
	var ids []string
	err := t.Model(&Activity{}).Where("draft_id IN ? AND retracted_at IS NULL AND closed_at IS NULL", draftIDs).Order("id").Pluck("id", &ids).Error
	return ids, err
}

// ChatDecision is the owner's decision about a chat's reply from an owed
// reply or a conversation.
type ChatDecision struct {
	ChatID    string
	AccountID string
	// Until is remind-later's date (YYYY-MM-DD, after today).
	Until string
}

func (d ChatDecision) check() error {
	if d.ChatID == "" || utf8.RuneCountInString(d.ChatID) > 256 {
		return fmt.Errorf("models: a decision names its chat: %w", ErrInvalidInput)
	}
	return nil
}

// DecideNoReplyNeeded records the owner's word that a chat needs no reply:
// it leaves the owed replies until someone writes again, its unsent drafts
// are declined (the agent reads it in the context), and their reply
// activities are dismissed.
func (s *Store) DecideNoReplyNeeded(ctx context.Context, d ChatDecision) (OwnerActionResult, error) {
	if err := d.check(); err != nil {
		return OwnerActionResult{}, err
	}
	rev, err := s.commit(ctx, func(t *txn) error {
		drafts, err := unsentDrafts(t, d.ChatID)
		if err != nil {
			return err
		}
		if err := recordReplyAction(t, d.ChatID, d.AccountID, drafts, ReplyAction{Action: ActionNoReplyNeeded}); err != nil {
			return err
		}
		if err := settleDrafts(t, drafts); err != nil {
			return err
		}
		acts, err := openReplyActivities(t, drafts)
		if err != nil {
			return err
		}
		for _, a := range acts {
			if err := decide(t, ActivityState{ActivityID: a, State: StateDismissed, Note: "no reply needed", Revision: t.rev, UpdatedAt: t.now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return OwnerActionResult{}, Classify("no reply needed", err)
	}
	return OwnerActionResult{Revision: rev}, nil
}

// RemindLater hides an owed reply until d.Until, a date after the owner's
// today: on that date the chat is owed again (unless answered meanwhile),
// and the reply activities of its unsent drafts are deferred to it.
func (s *Store) RemindLater(ctx context.Context, d ChatDecision) (OwnerActionResult, error) {
	if err := d.check(); err != nil {
		return OwnerActionResult{}, err
	}
	if _, err := instant.ParseDate(d.Until); err != nil {
		return OwnerActionResult{}, &FieldError{Field: "until", Message: "Enter a date from 2000-01-01 to 2199-12-31, as YYYY-MM-DD."}
	}
	rev, err := s.commit(ctx, func(t *txn) error {
		day, err := t.ownerDay()
		if err != nil {
			return err
		}
		if d.Until <= day.Date {
			return &FieldError{Field: "until", Message: "A reminder is for a day after today: choose a later date."}
		}
		drafts, err := unsentDrafts(t, d.ChatID)
		if err != nil {
			return err
		}
		if err := recordReplyAction(t, d.ChatID, d.AccountID, drafts, ReplyAction{Action: ActionRemindLater, Until: d.Until}); err != nil {
			return err
		}
		acts, err := openReplyActivities(t, drafts)
		if err != nil {
			return err
		}
		for _, a := range acts {
			if err := decide(t, ActivityState{ActivityID: a, State: StateDeferred, Until: d.Until, Note: "remind me later", Revision: t.rev, UpdatedAt: t.now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return OwnerActionResult{}, Classify("remind later", err)
	}
	return OwnerActionResult{Revision: rev}, nil
}

// HandOff is the owner's "open in Beeper with this text": a draft's editor
// (resolved as wording.Chosen does) or, without DraftID, the composer's.
type HandOff struct {
	ChatID    string
	AccountID string
	DraftID   string
	Form      WordingForm
}

// HandOffPlan is a hand-off checked and resolved: the text to put in
// Beeper's message field, and what to record once Beeper opened it.
type HandOffPlan struct {
	ChatID    string
	AccountID string
	DraftID   string
	Body      string
	// Candidate is the draft's candidate the text is, if any.
	Candidate string
	// Composer, when set, is the text Beeper's composer took for the chat
	// (as Beeper reported it): hearth takes it back out when the chat
	// moves on. Empty when Beeper was only opened with the text.
	Composer string
}

// PrepareHandOff checks a hand-off before Beeper is asked to open it: an
// unknown draft is ErrNotFound, one of another chat ErrDraftNotInChat, a
// blank or long text ErrInvalidInput. A draft's wording is resolved as
// wording.Chosen does, and its account fills an empty AccountID.
func (s *Store) PrepareHandOff(ctx context.Context, h HandOff) (HandOffPlan, error) {
	if err := (ChatDecision{ChatID: h.ChatID}).check(); err != nil {
		return HandOffPlan{}, err
	}
	body, candidate := wording.NormalizeNewlines(h.Form.Body), ""
	if h.DraftID != "" {
		rows, err := scanDraftRows(draftsWithEdits(s.rdb.WithContext(ctx)).Where("reply_drafts.id = ? AND reply_drafts.retracted_at IS NULL", h.DraftID))
		if err != nil {
			return HandOffPlan{}, fmt.Errorf("models: hand off: %w", err)
		}
		if len(rows) == 0 {
			return HandOffPlan{}, ErrNotFound
		}
		if rows[0].ChatID != h.ChatID {
			return HandOffPlan{}, ErrDraftNotInChat
		}
		w := wording.Chosen(rows[0].view(), h.Form)
		body, candidate = w.Body, w.Candidate
		h.AccountID = cmp.Or(h.AccountID, rows[0].AccountID)
	}
	if err := checkReplyBody(body); err != nil {
		return HandOffPlan{}, err
	}
	return HandOffPlan{ChatID: h.ChatID, AccountID: h.AccountID, DraftID: h.DraftID, Body: body, Candidate: candidate}, nil
}

// RecordHandOff records a hand-off Beeper opened, never as a send: a
// draft's wording is kept as the owner's edit, and its reply activity
// waits (the watch sees the message when the owner sends it).
func (s *Store) RecordHandOff(ctx context.Context, h HandOffPlan) (OwnerActionResult, error) {
	rev, err := s.commit(ctx, func(t *txn) error {
		var drafts []string
		if h.DraftID != "" {
			drafts = []string{h.DraftID}
			if err := saveEdit(t, h.DraftID, h.Body, h.Candidate); err != nil {
				return err
			}
		}
		if err := recordReplyAction(t, h.ChatID, h.AccountID, drafts, ReplyAction{Action: ActionHandedOff, Body: h.Body}); err != nil {
			return err
		}
		if h.Composer != "" {
			if err := recordComposerHandOff(t, h.ChatID, h.Composer); err != nil {
				return err
			}
		}
		acts, err := openReplyActivities(t, drafts)
		if err != nil {
			return err
		}
		for _, a := range acts {
			if err := decide(t, ActivityState{ActivityID: a, State: StateWaiting, Note: "handed off to Beeper", Revision: t.rev, UpdatedAt: t.now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return OwnerActionResult{}, Classify("hand off", err)
	}
	return OwnerActionResult{Revision: rev}, nil
}

// saveEdit stores the owner's wording of a draft inside t unless it is
// already stored; a changed wording bumps the revision.
func saveEdit(t *txn, draftID, body, candidateID string) error {
	var prior []DraftEdit
	if err := t.Where("draft_id = ?", draftID).Limit(1).Find(&prior).Error; err != nil {
		return err
	}
	if len(prior) == 1 && prior[0].Body == body && prior[0].SelectedCandidateID == candidateID {
		return nil
	}
	rev, err := t.bump()
	if err != nil {
		return err
	}
	t.touch("draft:" + draftID)
	return t.Save(&DraftEdit{DraftID: draftID, Body: body, SelectedCandidateID: candidateID, Revision: rev, UpdatedAt: t.now}).Error
}

// WordingForm is a draft editor as submitted (internal/wording).
type WordingForm = wording.Form

// Wording is what the owner chose to send from a draft's editor
// (wording.Choice), with where and when it was saved.
type Wording struct {
	// ChatID is the draft's chat, where the review happens.
	ChatID string
	wording.Choice
	// Revision is the revision the save committed; 0 when the wording
	// was already stored.
	Revision int64
	// Answer is WordingForm.Activity's row as Home shows it after the save.
	Answer RowAnswer
}

// checkReplyBody refuses a reply that is blank or longer than MaxBodyLen.
func checkReplyBody(body string) error {
	if strings.TrimSpace(body) == "" || utf8.RuneCountInString(body) > contract.MaxBodyLen {
		return fmt.Errorf("models: a reply needs 1-%d characters: %w", contract.MaxBodyLen, ErrInvalidInput)
	}
	return nil
}

// SaveDraftWording resolves an editor's submission (wording.Chosen) and
// saves it as the owner's edit, returning what was chosen. An empty text
// is ErrInvalidInput and saves nothing.
func (s *Store) SaveDraftWording(ctx context.Context, draftID string, f WordingForm) (Wording, error) {
	rows, err := scanDraftRows(draftsWithEdits(s.rdb.WithContext(ctx)).Where("reply_drafts.id = ? AND reply_drafts.retracted_at IS NULL", draftID))
	if err != nil {
		return Wording{}, fmt.Errorf("models: save wording: %w", err)
	}
	if len(rows) == 0 {
		return Wording{}, ErrNotFound
	}
	w := Wording{Choice: wording.Chosen(rows[0].view(), f)}
	w.ChatID = rows[0].ChatID
	res, err := s.saveDraftEdit(ctx, draftID, w.Body, w.Candidate, f.Since, f.Activity)
	if err != nil {
		return w, err
	}
	w.Answer = res.Answer
	if !res.Unchanged {
		w.Revision = res.Revision
	}
	return w, nil
}

// Today is the owner's day now.
func (s *Store) Today(ctx context.Context) (Day, error) {
	day, err := OwnerDay(s.rdb.WithContext(ctx), s.clock(), "")
	if err != nil {
		return Day{}, fmt.Errorf("models: today: %w", err)
	}
	return day, nil
}

// OwedReply is a chat whose last message is from someone else and has
// waited longer than OwedAfter for an answer.
type OwedReply struct {
	ChatID    string
	AccountID string
	Title     string
	// Since is when the unanswered message arrived; LastText is its text.
	Since    time.Time
	LastText string
	// RemindedFor is a remind-later date that has come.
	RemindedFor string
	// HandedOffAt is when the owner last opened it in Beeper with a text.
	HandedOffAt *time.Time
	// Drafts are the chat's live drafts that were not sent or are not in flight.
	Drafts []ChatDraft
}

// owedReplies is OwedReplies without the drafts (Home counts them, so it
// reads only chats that spoke within OwedWindow). Instants are stored as
// text in the zone they came in, which SQL compares only to within 14
// hours: SQL leaves out what is older by a day's margin, and the window
// is applied exactly here.
func owedReplies(tx *gorm.DB, now time.Time, day Day, after time.Duration) ([]OwedReply, error) {
	rows, err := scanRows(tx.Raw(`SELECT chat_id, account_id, title, last_incoming_at, last_incoming_text FROM beeper_watch
		WHERE last_incoming_sort_key <> '' AND last_incoming_sort_key = last_said_sort_key AND muted = 0 AND last_incoming_at >= ?`,
		now.Add(-OwedWindow-24*time.Hour).UTC()),
		func(r *chatWatch) []any {
			return []any{&r.ChatID, &r.AccountID, &r.Title, &r.LastIncomingAt, &r.LastIncomingText}
		})
	if err != nil {
		return nil, err
	}
	owed := map[string]*OwedReply{}
	var chats []string
	for _, r := range rows {
		if r.LastIncomingAt == nil {
			continue
		}
		waited := now.Sub(*r.LastIncomingAt)
		if waited <= after || waited > OwedWindow {
			continue
		}
		owed[r.ChatID] = &OwedReply{ChatID: r.ChatID, AccountID: r.AccountID, Title: cmp.Or(r.Title, r.ChatID), Since: *r.LastIncomingAt, LastText: r.LastIncomingText}
		chats = append(chats, r.ChatID)
	}
	if len(chats) == 0 {
		return nil, nil
	}
	var sends []Send
	if err := tx.Select("chat_id, created_at").Where("chat_id IN ? AND status IN ?", chats, []string{SendSent, SendPending, SendUnknown}).Find(&sends).Error; err != nil {
		return nil, err
	}
	for _, sd := range sends {
		if o := owed[sd.ChatID]; o != nil && !sd.CreatedAt.Before(o.Since) {
			delete(owed, sd.ChatID) // answered, or the answer is on its way
		}
	}
	var acts []ReplyAction
	if err := tx.Where("chat_id IN ? AND action IN ?", chats, []string{ActionNoReplyNeeded, ActionRemindLater, ActionHandedOff}).Order("id").Find(&acts).Error; err != nil {
		return nil, err
	}
	for _, a := range acts {
		o := owed[a.ChatID]
		if o == nil || a.CreatedAt.Before(o.Since) {
			continue // a decision about earlier messages
		}
		switch a.Action {
		case ActionNoReplyNeeded:
			delete(owed, a.ChatID)
		case ActionRemindLater:
			if a.Until > day.Date {
				delete(owed, a.ChatID)
			} else {
				o.RemindedFor = a.Until
			}
		case ActionHandedOff:
			at := a.CreatedAt
			o.HandedOffAt = &at
		}
	}
	out := make([]OwedReply, 0, len(owed))
	for _, o := range owed {
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b OwedReply) int { return cmp.Or(a.Since.Compare(b.Since), strings.Compare(a.ChatID, b.ChatID)) })
	return out, nil
}

// Draft outcomes: what became of a draft, as the agent reads it.
const (
	DraftSentAsWritten = "sent-as-written"
	DraftSentEdited    = "sent-edited"
	DraftReplaced      = "replaced"
	DraftHandedOff     = "handed-off"
	DraftDeclined      = "declined"
)

// DraftOutcomes sets each draft's Outcome from its sends and the owner's
// decisions: the agent's context and the runs' fates (models/read) read it.
func DraftOutcomes(tx *gorm.DB, drafts []contract.DraftView) error {
	if len(drafts) == 0 {
		return nil
	}
	ids := make([]string, len(drafts))
	for i, d := range drafts {
		ids[i] = d.ID
	}
	out := map[string]*contract.DraftOutcomeView{}
	var acts []struct {
		DraftID   string
		Action    string
		Body      string
		CreatedAt time.Time
		SendBody  *string
		SendKey   *string
	}
	if err := tx.Raw(`SELECT a.draft_id, a.action, a.body, a.created_at, s.body AS send_body, s.send_key FROM reply_actions a
		LEFT JOIN sends s ON s.id = a.send_id WHERE a.draft_id IN ? AND a.action IN ? ORDER BY a.id`,
		ids, []string{ActionOwnReply, ActionHandedOff, ActionNoReplyNeeded}).Scan(&acts).Error; err != nil {
		return err
	}
	for _, a := range acts {
		o := &contract.DraftOutcomeView{At: a.CreatedAt}
		switch a.Action {
		case ActionOwnReply:
			// Without a send the owner typed it in Beeper: its text is the action's.
			o.Kind, o.Text, o.SendKey = DraftReplaced, cmp.Or(deref(a.SendBody), a.Body), deref(a.SendKey)
		case ActionHandedOff:
			o.Kind, o.Text = DraftHandedOff, a.Body
		default:
			o.Kind = DraftDeclined
		}
		out[a.DraftID] = o
	}
	var sent []Send
	if err := tx.Where("draft_id IN ? AND status = ?", ids, SendSent).Order("id").Find(&sent).Error; err != nil {
		return err
	}
	for _, sd := range sent {
		o := &contract.DraftOutcomeView{Kind: DraftSentAsWritten, CandidateID: sd.WrittenCandidateID, SendKey: sd.SendKey, At: sd.UpdatedAt}
		if sd.WrittenCandidateID == "" {
			o.Kind, o.Text = DraftSentEdited, sd.Body
		}
		out[string(sd.DraftID)] = o
	}
	for i := range drafts {
		drafts[i].Outcome = out[drafts[i].ID]
	}
	return nil
}

// OwedReplies lists the owed replies, oldest first, each with the drafts
// the agent published for it: chats whose newest message is from someone
// else, unanswered for more than the store's owed threshold (and less than
// OwedWindow), not muted, with no send since, no "no reply needed" since,
// and no reminder still in the future.
func (s *Store) OwedReplies(ctx context.Context) ([]OwedReply, error) {
	var out []OwedReply
	err := s.Read(ctx, func(tx *gorm.DB) error {
		now := s.clock()
		day, err := OwnerDay(tx, now, "")
		if err != nil {
			return err
		}
		if out, err = owedReplies(tx, now, day, s.owedAfter); err != nil || len(out) == 0 {
			return err
		}
		chats := make([]string, len(out))
		for i, o := range out {
			chats[i] = o.ChatID
		}
		drafts, err := ChatDraftsOf(tx, now, chats)
		if err != nil {
			return err
		}
		for _, d := range drafts {
			if d.LastSend == nil || d.LastSend.Status == SendFailed {
				i := slices.IndexFunc(out, func(o OwedReply) bool { return o.ChatID == d.ChatID })
				out[i].Drafts = append(out[i].Drafts, d)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: owed replies: %w", err)
	}
	return out, nil
}

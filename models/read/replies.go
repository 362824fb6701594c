package read

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/rhythm"
	"hearth/internal/voice"
	"hearth/models"
)

// The owner's replies as People and the agent context weigh them: how each
// person and chat answered them, how the owner's words differed from the
// drafts, each person's rhythm.

// sentReply is one sent reply of the rate window, with the person it went to.
// The send's columns scanned are chat_id, draft_id, written_candidate_id,
// created_at and answered_at.
type sentReply struct {
	models.Send
	PersonID *string
}

// origin is the reply's Send.Origin.
func (r sentReply) origin() string { return r.Send.Origin() }

// sentReplies reads the replies sent since since, each with its person:
// the draft's, or for an own reply the person of the chat's newest draft.
func sentReplies(tx *gorm.DB, since time.Time) ([]sentReply, error) {
	var rows []sentReply
	err := tx.Raw(`SELECT s.chat_id, s.draft_id, s.written_candidate_id, s.created_at, s.answered_at,
			COALESCE(d.person_id, (SELECT d2.person_id FROM reply_drafts d2 INDEXED BY reply_drafts_chat
				WHERE d2.chat_id = s.chat_id AND d2.retracted_at IS NULL AND d2.person_id IS NOT NULL ORDER BY d2.rowid DESC LIMIT 1)) AS person_id
		FROM sends s INDEXED BY sends_sent LEFT JOIN reply_drafts d ON d.id = s.draft_id
		WHERE s.status = 'sent' AND s.created_at >= ? ORDER BY s.created_at`, since).Scan(&rows).Error
	return rows, err
}

// replyStats sums sent replies by key (a person's or chat's ID; "" is skipped).
func replyStats(rows []sentReply, key func(sentReply) string) map[string]models.ReplyStats {
	waits := map[string][]time.Duration{}
	out := map[string]models.ReplyStats{}
	for _, r := range rows {
		k := key(r)
		if k == "" {
			continue
		}
		st := out[k]
		st.Sent++
		if r.AnsweredAt != nil {
			st.Answered++
			waits[k] = append(waits[k], max(r.AnsweredAt.Sub(r.CreatedAt), 0))
		}
		out[k] = st
	}
	for k, w := range waits {
		st := out[k]
		st.MedianAnswer = rhythm.Median(w)
		out[k] = st
	}
	return out
}

// chatReplies is the agent context's ChatReplies: per chat with replies
// sent in models.ReplyRateWindow, by chat ID.
func chatReplies(tx *gorm.DB, now time.Time) ([]contract.ChatRepliesView, error) {
	rows, err := sentReplies(tx, now.Add(-models.ReplyRateWindow))
	if err != nil {
		return nil, err
	}
	byChat := replyStats(rows, func(r sentReply) string { return r.ChatID })
	type chatOrigin struct{ chat, origin string }
	origins := map[chatOrigin]*contract.OriginRepliesView{}
	person := map[string]string{}
	for _, r := range rows {
		k := chatOrigin{r.ChatID, r.origin()}
		o := origins[k]
		if o == nil {
			o = &contract.OriginRepliesView{Origin: k.origin}
			origins[k] = o
		}
		o.Sent++
		if r.AnsweredAt != nil {
			o.Answered++
		}
		if r.PersonID != nil {
			person[r.ChatID] = *r.PersonID // the newest reply's person
		}
	}
	var out []contract.ChatRepliesView
	for chat, st := range byChat {
		v := contract.ChatRepliesView{ChatID: chat, PersonID: person[chat], Sent: st.Sent, Answered: st.Answered}
		if st.Answered > 0 {
			v.MedianMinutes = minutesOf(st.MedianAnswer)
		}
		for _, origin := range []string{models.OriginAsDrafted, models.OriginEdited, models.OriginOwnWords} {
			if o := origins[chatOrigin{chat, origin}]; o != nil {
				v.ByOrigin = append(v.ByOrigin, *o)
			}
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b contract.ChatRepliesView) int { return strings.Compare(a.ChatID, b.ChatID) })
	return out, nil
}

// minutesOf is d in whole minutes, rounded.
func minutesOf(d time.Duration) *int {
	m := int(d.Round(time.Minute) / time.Minute)
	return &m
}

// replyStatsByPerson is how each person answered the replies sent since
// since, by person ID.
func replyStatsByPerson(tx *gorm.DB, since time.Time) (map[string]models.ReplyStats, error) {
	sent, err := sentReplies(tx, since)
	if err != nil {
		return nil, err
	}
	return replyStats(sent, func(r sentReply) string { return deref(r.PersonID) }), nil
}

// voiceByPerson compares each draft reply sent in models.ReplyRateWindow with the
// draft text it was sent from and sums them up per person of the draft,
// for persons with at least voice.MinCompared of them. The comparison is
// read from the two stored texts, not stored itself: it is a pure function
// of them, so it never disagrees with what was sent.
func voiceByPerson(tx *gorm.DB, now time.Time) (map[string]voice.Summary, error) {
	var rows []struct {
		PersonID  string
		Body      string
		DraftBody string
	}
	if err := tx.Raw(`SELECT d.person_id, s.body, s.draft_body FROM sends s INDEXED BY sends_sent JOIN reply_drafts d ON d.id = s.draft_id
		WHERE s.status = 'sent' AND s.created_at >= ? AND s.draft_body IS NOT NULL AND d.person_id IS NOT NULL ORDER BY s.created_at, s.id`,
		now.Add(-models.ReplyRateWindow)).Scan(&rows).Error; err != nil {
		return nil, err
	}
	diffs := map[string][]voice.Diff{}
	for _, r := range rows {
		diffs[r.PersonID] = append(diffs[r.PersonID], voice.Compare(r.DraftBody, r.Body))
	}
	out := map[string]voice.Summary{}
	for person, ds := range diffs {
		if sum, ok := voice.Summarise(ds); ok {
			out[person] = sum
		}
	}
	return out, nil
}

// personRhythms reads each person's rhythm at now, by person ID, from
// the beats of their chats. A chat is a person's when its newest draft (not
// retracted) is about them, as Messages names chats, or else when it is
// the chat of beeper evidence that person alone cites.
func personRhythms(tx *gorm.DB, now time.Time) (map[string]models.PersonRhythm, error) {
	chatPerson, err := rhythmChats(tx)
	if err != nil || len(chatPerson) == 0 {
		return nil, err
	}
	chats := make([]string, 0, len(chatPerson))
	for c := range chatPerson {
		chats = append(chats, c)
	}
	slices.Sort(chats)
	msgs := map[string][]rhythm.Message{}
	for chunk := range slices.Chunk(chats, evidenceChunk) {
		// Scanned by hand: a year of busy chats is tens of thousands of rows.
		rows, err := tx.Raw("SELECT chat_id, at, from_owner FROM chat_beats WHERE chat_id IN ? AND at >= ?", chunk, now.Add(-models.RhythmWindow).Unix()).Rows()
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var chat string
			var at int64
			var mine bool
			if err := rows.Scan(&chat, &at, &mine); err != nil {
				rows.Close()
				return nil, err
			}
			p := chatPerson[chat]
			msgs[p] = append(msgs[p], rhythm.Message{At: time.Unix(at, 0), FromOwner: mine})
		}
		if err := cmp.Or(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
	}
	out := make(map[string]models.PersonRhythm, len(msgs))
	for p, m := range msgs {
		out[p] = rhythm.Of(m, now)
	}
	return out, nil
}

// rhythmChats maps the watched chats linked to a person to that person's ID.
func rhythmChats(tx *gorm.DB) (map[string]string, error) {
	var drafted []struct{ ChatID, PersonID string }
	if err := tx.Raw(`SELECT w.chat_id, (SELECT d.person_id FROM reply_drafts d INDEXED BY reply_drafts_chat JOIN people p ON p.id = d.person_id
			WHERE d.chat_id = w.chat_id AND d.retracted_at IS NULL ORDER BY d.rowid DESC LIMIT 1) AS person_id
		FROM beeper_watch w`).Scan(&drafted).Error; err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, d := range drafted {
		if d.PersonID != "" {
			out[d.ChatID] = d.PersonID
		}
	}
	var people []models.Person
	if err := tx.Select("id, evidence_ids").Find(&people).Error; err != nil {
		return nil, err
	}
	cited := map[string][]string{} // evidence ID → people citing it
	var ids []string
	for _, p := range people {
		for _, e := range evidenceIDs(p.EvidenceIDs) {
			cited[e] = append(cited[e], p.ID)
			ids = append(ids, e)
		}
	}
	slices.Sort(ids)
	byChat := map[string][]string{}
	for chunk := range slices.Chunk(slices.Compact(ids), evidenceChunk) {
		var refs []models.SourceRef
		if err := tx.Select("id, chat_id").Where("id IN ? AND kind = ? AND chat_id <> ''", chunk, "beeper").Find(&refs).Error; err != nil {
			return nil, err
		}
		for _, r := range refs {
			byChat[r.ChatID] = append(byChat[r.ChatID], cited[r.ID]...)
		}
	}
	for chat, who := range byChat {
		slices.Sort(who)
		if who = slices.Compact(who); len(who) == 1 && out[chat] == "" {
			out[chat] = who[0]
		}
	}
	return out, nil
}

// inDays is d in days to one decimal.
func inDays(d time.Duration) float64 { return math.Round(d.Hours()/24*10) / 10 }

// evidenceChunk bounds the IDs bound in one query: SQLite's limit of
// bound parameters (as models' evidence reads).
const evidenceChunk = 1000

// evidenceIDs is a row's evidence ID list (JSON), empty when unreadable.
func evidenceIDs(text string) []string {
	var ids []string
	_ = json.Unmarshal([]byte(text), &ids)
	return ids
}

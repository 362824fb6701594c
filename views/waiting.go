package views

import (
	"strings"
	"time"

	"github.com/a-h/templ"

	"hearth/internal/ids"
	"hearth/models"
)

// waitingWhen is an item's age, when it comes back, or when it finished.
func waitingWhen(it *models.WaitingItem, finished bool, now time.Time, day models.Day) string {
	switch {
	case finished:
		return "finished " + ago(now, it.Since)
	case it.Until != nil:
		return "set aside, back " + when(*it.Until, day)
	case it.Kind == models.WaitRequest:
		return "asked " + ago(now, it.Since)
	}
	return "waiting " + strings.TrimSuffix(ago(now, it.Since), " ago")
}

// waitingKindWords names an item's kind.
func waitingKindWords(kind string) string {
	switch kind {
	case models.WaitReply:
		return "Reply draft to review"
	case models.WaitTask:
		return "Task the agent raised"
	case models.WaitProposal:
		return "Routine proposal"
	case models.WaitHeldSend:
		return "Held send"
	case models.WaitHeldSchedule:
		return "Held schedule"
	case models.WaitRun:
		return "Run that needs a look"
	case models.WaitRequest:
		return "Your request"
	case models.WaitSent:
		return "Reply sent"
	}
	return kind
}

// waitingAnchor is a key usable in an element id.
func waitingAnchor(key string) string { return anchorSafe.Replace(key) }

// anchorSafe is built once: building a Replacer per item of the list was
// a tenth of the list's render.
var anchorSafe = strings.NewReplacer(":", "-", "/", "-", " ", "-")

// decisionRequestID is the requestId of a proposal's decision made from the
// list: one per proposal, since a proposal is decided once, so a cached
// Home never hands two devices different keys for the same decision.
func decisionRequestID(it *models.WaitingItem) string {
	id := "decide." + it.ReviewID + "." + it.ProposalID
	if !ids.Valid(id) {
		return ""
	}
	return id
}

// WaitingAll is the name in Home's open set (?open=) that shows every
// item waiting on the owner instead of the oldest few.
const WaitingAll = "waiting"

// waitingHref is Home with the whole waiting list (all) or its oldest few,
// the rows open keeping open.
func waitingHref(open map[string]bool, all bool) templ.SafeURL {
	return homeWith(open, WaitingAll, all, "waiting")
}

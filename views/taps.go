package views

import (
	"hearth/models"

	"hearth/internal/contract"
)

// What a row's head says and offers, so a collapsed row can be acted on
// in one tap.

// headState is the state word of a row's head: none for open work (a "to
// do" on every row said nothing), the outcome or the wait otherwise.
func headState(r models.HomeRow) string {
	if l := stateLabel(r); l != "to do" {
		return l
	}
	return ""
}

// outcomeClass colours a settled outcome: only what was done (wholly or in
// part) is in the success colour; skipped, not applicable and dismissed are not.
func outcomeClass(r models.HomeRow) string {
	switch r.UserState.State {
	case models.StateCompleted, models.StatePartial:
		return "settled ok"
	}
	return "settled"
}

// rowClass is a row's class: a constant string, where templ's class
// list allocated its processor on every row of every render.
func rowClass(r models.HomeRow) string {
	if tickable(r) {
		return "row tickable"
	}
	return "row"
}

// tickable reports whether a row offers the one-tap tick on its collapsed
// head: an open routine step that is a plain task (a measurement needs its
// value, a reply its send, so they keep their expander).
func tickable(r models.HomeRow) bool {
	return r.ParentID != "" && r.Kind == contract.KindTask && !r.Settled()
}

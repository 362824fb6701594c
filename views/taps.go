package views

import "hearth/models"

// Issue 17, point 4 (fewer taps): what a row's head says and offers.

// outcomeClass colours a settled outcome: only what was done (wholly or in
// part) is in the success colour; skipped, not applicable and dismissed are not.
func outcomeClass(r models.HomeRow) string {
	switch r.UserState.State {
	case models.StateCompleted, models.StatePartial:
		return "settled ok"
	}
	return "settled"
}

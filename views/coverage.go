package views

import (
	"hearth/internal/contract"
	"hearth/models"
)

// coverageWords says a span when hearth could not see Beeper, and what it
// means for the owner: "Beeper was not visible from 03:10 to 05:40;
// replies may be missing."
func coverageWords(g contract.CoverageGapView, day models.Day) string {
	if g.To == nil {
		return "Beeper has not been visible since " + when(g.From, day) + "; replies may be missing."
	}
	return "Beeper was not visible from " + when(g.From, day) + " to " + coverageEnd(g, day) + "; replies may be missing."
}

// coverageEnd is a span's end, its time alone when it ended on the day it began.
func coverageEnd(g contract.CoverageGapView, day models.Day) string {
	if ownerDate(g.From, day) == ownerDate(*g.To, day) {
		return ownerTime(*g.To, day, "15:04")
	}
	return when(*g.To, day)
}

// coverageWhat says what kept Beeper from view, in the owner's words.
func coverageWhat(what string) string {
	switch what {
	case contract.CoverageTokenRefused:
		return "Beeper refused the token."
	case contract.CoverageTimeout:
		return "Beeper did not answer in time."
	case contract.CoverageBeeperError:
		return "Beeper answered with an error of its own."
	}
	return "Beeper could not be reached: closed, asleep, or the network down."
}

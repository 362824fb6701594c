package views

import "hearth/static"

// descriptions are the meta descriptions of the pages by title: search
// engines never see these pages (they need a login), but Lighthouse and
// link previews read them, and each says what its page is for.
var descriptions = map[string]string{
	"Home":      "Today's brief and what to do now: routines, focus, replies owed and what is done, on one page.",
	"Messages":  "Conversations that wait for a reply, with the drafts the assistant prepared for review.",
	"People":    "The people in the owner's life, their chats and what is open with each of them.",
	"Routines":  "What each routine you are trying asks of today, how it is going, and the days behind it.",
	"Weight":    "Every weigh-in with its corrections, the smoothed trend, 7- and 30-day change and the goal.",
	"More":      "Schedules, runs, weight, exports and the other pages that are not in the tab bar.",
	"Schedules": "When the assistant's jobs run, in the owner's time zone, and how to change or pause them.",
	"Runs":      "The assistant's recent runs: what each job did, when, and what failed.",
	"Log in":    "Log in to hearth, the owner's household assistant.",
}

// description is the meta description of a page titled title.
func description(title string) string {
	if d, ok := descriptions[title]; ok {
		return d
	}
	return title + " in hearth, the owner's household assistant."
}

// inlineStyle is hearth.css as a style element: a linked stylesheet blocks
// the first paint for a round trip; inline, it is allowed by its hash in the
// CSP (handlers' securityHeaders), never by 'unsafe-inline'.
func inlineStyle() string { return styleElement }

// StyleElement is the stylesheet as every page carries it inline, for the
// page cache to deflate once (handlers' deflatePart).
func StyleElement() string { return styleElement }

// styleElement is built once: every page carries it, and joining the
// stylesheet per render copied it each time.
var styleElement = "<style>" + static.Inline("hearth.css") + "</style>"

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

const quickAddField = `#quick-add-text`

// quickAddHolds is JS that is true once Home's quick add shows text, visible.
func quickAddHolds(text string) string {
	return fieldJS(quickAddField, fmt.Sprintf(`!!f && f.value === %q && f.checkVisibility()`, text))
}

// Words typed into Home's quick add and not yet added are the owner's
// like any other typing: a reload, Back and Home read anew all show them.
func TestWordsTypedIntoQuickAddAreKeptAcrossAReloadAndLeavingAndBack(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	const typed = "ask Ana about the hike"
	tb.showField(quickAddField)
	tb.typeInto(quickAddField, typed)

	tb.do("reload", chromedp.Reload())
	eventually(tb, "the typed words back after the reload", quickAddHolds(typed), navigationDeadline)
	if note := tb.restoredNote(quickAddField); !strings.Contains(note, "Restored what you typed here.") {
		t.Errorf("no quiet restored note beside the quick add (got %q)", note)
	}

	tb.tapNav("/messages")
	tb.back("/")
	eventually(tb, "the typed words there after Back", quickAddHolds(typed), navigationDeadline)

	tb.tapNav("/messages")
	tb.navigate("/")
	eventually(tb, "the typed words there when Home is read anew", quickAddHolds(typed), navigationDeadline)
}

// An add hearth took empties the field, and what was kept of it goes with
// it: a reload neither puts the words back nor says it restored anything.
func TestAQuickAddTakenLeavesTheFieldEmptyAcrossAReload(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	const typed = "buy stamps"
	tb.showField(quickAddField)
	tb.typeInto(quickAddField, typed)
	eventually(tb, "the typed words kept on the device", fieldJS(quickAddField,
		`Object.keys(localStorage).some(function(k){return k.indexOf("hearth.keep:")===0 && k.indexOf("|"+f.id+"|")>0})`), navigationDeadline)
	keys := tb.keptKeys(quickAddField)
	if len(keys) != 1 {
		t.Fatalf("typing kept %d copies on the device, want 1", len(keys))
	}

	tb.do("add it", tap(`[data-testid="quick-add-save"]`),
		chromedp.WaitVisible(css(`[data-testid="mine-today"] [data-testid="mine-item"]`)))
	if v := tb.valueOf(quickAddField); v != "" {
		t.Errorf("the field holds %q after the add, want it empty", v)
	}
	if note := tb.restoredNote(quickAddField); note != "" {
		t.Errorf("after the add the page says %q beside the field", note)
	}
	if n := tb.stillKept(keys); n != 0 {
		t.Errorf("after hearth took the add, %d copies are still kept on the device", n)
	}

	// keep.js loads after the page's load event; its start marks the owner's
	// page in sessionStorage and restores in the same task. The mark is
	// dropped before the reload, so its return says the restore has run.
	tb.do("drop keep.js's mark", chromedp.Evaluate[chromedp.Void](`sessionStorage.removeItem("hearth.keep.owner"); true`))
	tb.do("reload", chromedp.Reload())
	eventually(tb, "keep.js has run on the reloaded Home", `sessionStorage.getItem("hearth.keep.owner") === "1" && !!document.querySelector('[data-testid="mine-today"] [data-testid="mine-item"]')`, navigationDeadline)
	if v := tb.valueOf(quickAddField); v != "" {
		t.Errorf("after the add and a reload the field holds %q, want it empty", v)
	}
	if note := tb.restoredNote(quickAddField); note != "" {
		t.Errorf("after the add and a reload the page says %q beside the field", note)
	}
	if n := get(tb, "items", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="mine-item"]').length`)); n != 1 {
		t.Errorf("Home shows %d of the owner's items, want the one added", n)
	}
}

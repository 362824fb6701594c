package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// keptField is an editor the owner types into, on the page that holds it.
type keptField struct {
	name string
	path string
	// sel addresses the field (the first of its kind on the page).
	sel  string
	text string
	// fill completes the rest of the form, so its save is one hearth takes.
	fill string
	// submit addresses the button that saves the field's form.
	submit string
}

// keptFields are the owner's editors beyond a reply and a row's weight.
func keptFields(t *testing.T) []keptField {
	day, err := time.Parse(time.DateOnly, demoDay(t))
	if err != nil {
		t.Fatal(err)
	}
	earlier := day.AddDate(0, 0, -40).Format(time.DateOnly)
	return []keptField{
		{name: "weight goal", path: "/weight", sel: "#goal", text: "64.5", submit: `#goal-form button[type="submit"]:not([name])`},
		{name: "pasted import", path: "/weight", sel: "#csv", text: "date,weight\n" + earlier + ",70.2",
			submit: `form.import-form button[type="submit"]`},
		{name: "routine note", path: "/routines", sel: `[data-testid="past-outcome-reason"]`, text: "Ran the errands on foot instead",
			submit: `[data-testid="past-outcome"] [data-testid="past-outcome-save"]`},
		{name: "people correction", path: "/people", sel: `[data-testid="correction-why"]`, text: "She moved in the spring",
			fill:   `(function(){var f=document.querySelector('[data-testid="correction-form"]');f.querySelector('[data-testid="correction-field"]').value="city";f.querySelector('[data-testid="correction-value"]').value="Lisbon";return true})()`,
			submit: `[data-testid="correction-form"] [data-testid="correction-submit"]`},
		{name: "ask the agent", path: "/", sel: "#ask-text", text: "Remember that the boiler is serviced on Thursday", submit: `[data-testid="ask-note"]`},
	}
}

// fieldJS evaluates expr with f bound to the field sel addresses ("<none>"
// handling is the caller's).
func fieldJS(sel, expr string) string {
	return fmt.Sprintf(`(function(){var f=document.querySelector(%q);return %s})()`, sel, expr)
}

// showField opens the disclosures around a field, as the owner's taps do.
func (tb *tab) showField(sel string) {
	tb.t.Helper()
	tb.do("open "+sel, chromedp.Evaluate[chromedp.Void](fieldJS(sel, `(function(){for(var d=f.closest("details");d;d=d.parentElement.closest("details"))d.open=true;return true})()`)))
	if !get(tb, sel+" visible", chromedp.Evaluate[bool](fieldJS(sel, `f.checkVisibility()`))) {
		tb.t.Fatalf("%s is not visible once its disclosures are open", sel)
	}
}

// restoredNote is the quiet note beside the field, or "".
func (tb *tab) restoredNote(sel string) string {
	return get(tb, "restored note", chromedp.Evaluate[string](fieldJS(sel,
		`(function(){var n=document.getElementById("restored-"+f.id);return n&&n.checkVisibility()&&n.getAttribute("role")==="status"?n.textContent:""})()`)))
}

// keptKeysOfField is, inside fieldJS, the keys under which this device
// keeps the text of the field f.
const keptKeysOfField = `Object.keys(localStorage).filter(function(k){return k.indexOf("hearth.keep:")===0 && k.indexOf("|"+f.id+"|")>0})`

// keptKeys are the keys under which this device keeps the field's text.
func (tb *tab) keptKeys(sel string) []string {
	return get(tb, "kept keys", chromedp.Evaluate[[]string](fieldJS(sel, keptKeysOfField)))
}

// stillKept counts which of keys this device still keeps.
func (tb *tab) stillKept(keys []string) int {
	var n int
	for _, k := range keys {
		if get(tb, "kept "+k, chromedp.Evaluate[bool](fmt.Sprintf(`localStorage.getItem(%q) !== null`, k))) {
			n++
		}
	}
	return n
}

func TestTypedTextInEveryEditorIsKeptAcrossAReload(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	for _, f := range keptFields(t) {
		t.Run(f.name, func(t *testing.T) {
			tb := &tab{t: t, ctx: tb.ctx, srv: srv}
			tb.navigate(f.path)
			tb.showField(f.sel)
			tb.typeInto(f.sel, f.text)
			tb.do("reload", chromedp.Reload())
			eventually(tb, "the typed text back after the reload", fieldJS(f.sel, fmt.Sprintf(`!!f && f.value === %q`, f.text)), navigationDeadline)
			if !get(tb, "field visible", chromedp.Evaluate[bool](fieldJS(f.sel, `f.checkVisibility()`))) {
				t.Error("the restored text is hidden in a closed disclosure")
			}
			if note := tb.restoredNote(f.sel); !strings.Contains(note, "Restored what you typed here.") {
				t.Errorf("no quiet restored note beside the field (got %q)", note)
			}
		})
	}
}

func TestTypedTextInEveryEditorIsKeptAcrossAnotherTabAndBack(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	for _, f := range keptFields(t) {
		t.Run(f.name, func(t *testing.T) {
			tb := &tab{t: t, ctx: tb.ctx, srv: srv}
			tb.navigate(f.path)
			tb.showField(f.sel)
			tb.typeInto(f.sel, f.text)
			tb.tapNav("/messages")
			tb.back(f.path)
			eventually(tb, "the typed text there after Back", fieldJS(f.sel, fmt.Sprintf(`!!f && f.value === %q && f.checkVisibility()`, f.text)), navigationDeadline)
		})
	}
}

func TestASavedEditorForgetsItsKeptText(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.watchKeepStarts()
	for _, f := range keptFields(t) {
		t.Run(f.name, func(t *testing.T) {
			tb := &tab{t: t, ctx: tb.ctx, srv: srv}
			tb.navigate(f.path)
			tb.keepStarted(f.path)
			tb.showField(f.sel)
			tb.typeInto(f.sel, f.text)
			keys := tb.keptKeys(f.sel)
			if len(keys) != 1 {
				t.Fatalf("typing kept %d copies on the device, want 1", len(keys))
			}
			if f.fill != "" {
				tb.do("fill the form", chromedp.Evaluate[chromedp.Void](f.fill))
			}
			tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.before = "true"; true`))
			tb.do("save", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click(); true`, f.submit)))
			eventually(tb, "hearth's answer shown", `!document.documentElement.dataset.before && document.readyState === "complete" && !!document.querySelector("main")`, navigationDeadline)
			tb.keepStarted("the answer")
			if refused := get(tb, "refusals", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('main [role="alert"]')).map(function(e){return e.textContent.trim()}).join(" | ")`)); refused != "" {
				t.Fatalf("hearth refused the save: %s", refused)
			}
			tb.navigate(f.path)
			// keep.js restores once it has started: only then can a
			// restored note be missing for the right reason.
			tb.keepStarted(f.path)
			if n := tb.stillKept(keys); n != 0 {
				t.Errorf("after hearth took the save, %d copies are still kept on the device", n)
			}
			if n := get(tb, "restored notes", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="restored"]').length`)); n != 0 {
				t.Errorf("after hearth took the save, the page says %d times that it restored typing", n)
			}
		})
	}
}

// refusedSaves are saves hearth refuses: what was typed must stay kept.
var refusedSaves = []keptField{
	{name: "weight goal", path: "/weight", sel: "#goal", text: "sixty", submit: `#goal-form button[type="submit"]:not([name])`},
	{name: "routine note", path: "/routines", sel: `[data-testid="past-outcome-reason"]`, text: "Recorded for a day long gone",
		fill:   `(function(){var f=document.querySelector('[data-testid="past-outcome"]');var d=f.querySelector('[name="date"]');if(d.tagName==="SELECT"){var o=document.createElement("option");o.value="2001-01-01";d.appendChild(o)}d.value="2001-01-01";return true})()`,
		submit: `[data-testid="past-outcome"] [data-testid="past-outcome-save"]`},
}

func TestARefusedSaveKeepsWhatWasTyped(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.watchKeepStarts()
	for _, f := range refusedSaves {
		t.Run(f.name, func(t *testing.T) {
			tb := &tab{t: t, ctx: tb.ctx, srv: srv}
			tb.navigate(f.path)
			tb.keepStarted(f.path)
			tb.showField(f.sel)
			tb.typeInto(f.sel, f.text)
			keys := tb.keptKeys(f.sel)
			if len(keys) != 1 {
				t.Fatalf("typing kept %d copies on the device, want 1", len(keys))
			}
			if f.fill != "" {
				tb.do("fill the form", chromedp.Evaluate[chromedp.Void](f.fill))
			}
			tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.before = "true"; true`))
			tb.do("save", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click(); true`, f.submit)))
			eventually(tb, "hearth's refusal shown", `!document.documentElement.dataset.before && document.readyState === "complete" && !!document.querySelector('main [role="alert"]')`, navigationDeadline)
			tb.keepStarted("the refusal")
			tb.navigate(f.path)
			tb.keepStarted(f.path)
			if n := tb.stillKept(keys); n != len(keys) {
				t.Errorf("after hearth refused the save, %d of %d copies are kept on the device", n, len(keys))
			}
			tb.showField(f.sel)
			if got := tb.valueOf(f.sel); got != f.text {
				t.Errorf("back on %s after the refusal the field holds %q, want %q", f.path, got, f.text)
			}
		})
	}
}

func TestASaveTakenFromTheRefusalPageForgetsTheRefusedText(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.watchKeepStarts()
	tb.navigate("/weight")
	tb.keepStarted("/weight")
	tb.typeInto("#goal", "sixty")
	tb.do("save", chromedp.Evaluate[chromedp.Void](`document.querySelector('#goal-form button[type="submit"]:not([name])').click(); true`))
	eventually(tb, "hearth's refusal shown", `location.pathname !== "/weight" && document.readyState === "complete" && !!document.querySelector('main [role="alert"]')`, navigationDeadline)
	tb.keepStarted("the refusal")
	// Corrected and saved from the refusal's page.
	tb.typeInto("#goal", "61.5")
	tb.do("save again", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.before = "true"; document.querySelector('#goal-form button[type="submit"]:not([name])').click(); true`))
	eventually(tb, "hearth's answer shown", `!document.documentElement.dataset.before && document.readyState === "complete" && !document.querySelector('main [role="alert"]')`, navigationDeadline)
	tb.keepStarted("the answer")
	tb.navigate("/weight")
	tb.keepStarted("/weight")
	if got := tb.valueOf("#goal"); got != "61.5" {
		t.Errorf("the goal field holds %q after the corrected save, want 61.5", got)
	}
	if note := tb.restoredNote("#goal"); note != "" {
		t.Errorf("after the corrected save the Weight page says %q", note)
	}
}

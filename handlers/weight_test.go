package handlers_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"hearth/internal/weight"
)

// weightCSV is a plain file of days weigh-ins ending the day before testDate,
// losing about 0.1 kg a day with a little noise.
func weightCSV(days int) string {
	var b strings.Builder
	b.WriteString("date,weight\n")
	end, _ := time.Parse(time.DateOnly, testDate)
	for i := days; i >= 1; i-- {
		d := end.AddDate(0, 0, -i)
		fmt.Fprintf(&b, "%s,%.1f\n", d.Format(time.DateOnly), 80-0.1*float64(days-i)+0.3*float64(i%3-1))
	}
	return b.String()
}

func TestWeightPageDrawsEntriesTrendAndChanges(t *testing.T) {
	ta, cookie := homeApp(t)
	id := "weigh-in-" + testDate
	for _, v := range []string{"77.9", "76.8"} { // saved, then corrected
		if resp := ta.ownerRequest(http.MethodPost, "/activities/"+id+"/measurement", url.Values{"value": {v}}, true, cookie); resp.status != http.StatusOK {
			t.Fatalf("save %s: %s", v, resp)
		}
	}
	if resp := ta.seeOther(t, ta.ownerRequest(http.MethodPost, "/weight/import", url.Values{"csv": {weightCSV(40)}, "confirm": {"1"}}, false, cookie), cookie); resp.status != http.StatusOK {
		t.Fatalf("import: %s", resp)
	}
	resp := ta.get("/weight", "", cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("GET /weight: %s", resp)
	}
	d := resp.doc(t)
	svg := has(t, d, `svg[data-testid="weight-chart"]`)
	if svg.Find("title").Text() == "" || svg.Find("desc").Text() == "" || svg.AttrOr("role", "") != "img" {
		t.Fatalf("the chart has no title, desc or role")
	}
	if path := has(t, d, `path[data-testid="trend-path"]`).AttrOr("d", ""); strings.Count(path, "L") < 30 {
		t.Fatalf("trend path %q does not follow 41 entries", path)
	}
	if n := d.Find(`svg [data-testid="weight-dot"]`).Length(); n != 41 {
		t.Fatalf("%d dots, want 41", n)
	}
	for _, sel := range []string{`[data-testid="change-7"]`, `[data-testid="change-30"]`} {
		if txt := has(t, d, sel).Text(); !strings.Contains(txt, "−") || !strings.Contains(txt, "kg") {
			t.Errorf("%s = %q, want a loss in kg", sel, txt)
		}
	}
	if n := d.Find(`[data-testid="weight-entry"]`).Length(); n != 41 {
		t.Fatalf("%d entries listed, want 41", n)
	}
	first := has(t, d, `[data-testid="weight-entry"]`).First()
	if txt := first.Text(); !strings.Contains(txt, "76.8 kg") || !strings.Contains(first.Find(`[data-testid="weight-correction"]`).Text(), "77.9") {
		t.Fatalf("newest entry %q does not show 76.8 kg correcting 77.9", txt)
	}
	if txt := has(t, d, `[data-testid="trend-method"]`).Text(); !strings.Contains(txt, "10 days") {
		t.Fatalf("method %q does not state τ", txt)
	}
}

func TestWeightPageWithNoEntriesSaysSo(t *testing.T) {
	ta, cookie := homeApp(t)
	d := ta.get("/weight", "", cookie).doc(t)
	has(t, d, `[data-testid="weight-empty"]`)
	if d.Find(`svg[data-testid="weight-chart"]`).Length() != 0 {
		t.Fatal("a chart without entries")
	}
	if resp := ta.get("/weight", "", nil); resp.status != http.StatusSeeOther && resp.status != http.StatusUnauthorized {
		t.Fatalf("without a session: %s", resp)
	}
}

func TestWeightGoalShowsAForecastRangeOnlyWhenTheTrendHeadsThere(t *testing.T) {
	ta, cookie := homeApp(t)
	ta.ownerRequest(http.MethodPost, "/weight/import", url.Values{"csv": {weightCSV(40)}, "confirm": {"1"}}, false, cookie)
	before := ta.revision()
	resp := ta.ownerRequest(http.MethodPost, "/weight/goal", url.Values{"goal": {"74"}}, false, cookie)
	if resp.status != http.StatusSeeOther || ta.revision() != before+1 {
		t.Fatalf("set goal: %s, revision %d → %d", resp, before, ta.revision())
	}
	d := ta.get("/weight", "", cookie).doc(t)
	if txt := has(t, d, `[data-testid="forecast"]`).Text(); !strings.Contains(txt, "between") || !strings.Contains(txt, "74 kg") {
		t.Fatalf("forecast %q is not a range to 74 kg", txt)
	}
	// A goal above a falling trend: no forecast, and it says why.
	ta.ownerRequest(http.MethodPost, "/weight/goal", url.Values{"goal": {"85"}}, false, cookie)
	d = ta.get("/weight", "", cookie).doc(t)
	if d.Find(`[data-testid="forecast"]`).Length() != 0 {
		t.Fatal("a forecast toward a goal the trend moves away from")
	}
	has(t, d, `[data-testid="forecast-none"]`)
	// A typo is refused in the form, with nothing written.
	before = ta.revision()
	resp = ta.ownerRequest(http.MethodPost, "/weight/goal", url.Values{"goal": {"7o"}}, false, cookie)
	if resp.status != http.StatusUnprocessableEntity || ta.revision() != before {
		t.Fatalf("bad goal: %s", resp)
	}
	if el := has(t, resp.doc(t), `#goal`); el.AttrOr("aria-invalid", "") != "true" || el.AttrOr("value", "") != "7o" {
		t.Fatal("the goal field is not marked invalid with the value kept")
	}
	// Clearing it removes it.
	ta.ownerRequest(http.MethodPost, "/weight/goal", url.Values{"clear": {"1"}}, false, cookie)
	d = ta.get("/weight", "", cookie).doc(t)
	if d.Find(`[data-testid="forecast"], [data-testid="forecast-none"]`).Length() != 0 {
		t.Fatal("a cleared goal still shows")
	}
}

func TestWeightImportDryRunShowsWhatWouldBeAddedAndWritesNothing(t *testing.T) {
	ta, cookie := homeApp(t)
	files := map[string]string{
		"Libra":       "#Version: 6\n#Units: kg\n\n#date;weight;weight trend;body fat;body fat trend;muscle mass;muscle mass trend;log\n2026-09-20T05:19:20.000Z;70.0;70.4;11.0;11.1;56.0;56.3;\n2026-09-21T05:07:48.000Z;69.8;70.3;;;;;\n",
		"openScale":   "\"biceps\",\"comment\",\"dateTime\",\"fat\",\"weight\"\n\"0.0\",\"\",\"2026-09-22 07:30\",\"20.1\",\"69.9\"\n\"0.0\",\"\",\"2026-09-23 07:10\",\"20.0\",\"69.7\"\n",
		"date,weight": "date,weight\n2026-09-24,69.6\n2026-09-25,69.5\n",
	}
	for format, file := range files {
		t.Run(format, func(t *testing.T) {
			ta := ta.in(t)
			before := ta.revision()
			resp := ta.seeOther(t, ta.ownerRequest(http.MethodPost, "/weight/import", url.Values{"csv": {file}}, false, cookie), cookie)
			if resp.status != http.StatusOK || ta.revision() != before {
				t.Fatalf("dry run: %s; revision %d → %d", resp, before, ta.revision())
			}
			d := resp.doc(t)
			if txt := has(t, d, `[data-testid="import-summary"]`).Text(); !strings.Contains(txt, format) || !strings.Contains(txt, "2 new") {
				t.Fatalf("summary %q", txt)
			}
			if n := d.Find(`[data-testid="import-row"]`).Length(); n != 2 {
				t.Fatalf("%d rows previewed, want 2", n)
			}
			has(t, d, `form[data-testid="import-confirm"] button`)
			resp = ta.seeOther(t, ta.ownerRequest(http.MethodPost, "/weight/import", url.Values{"csv": {file}, "confirm": {"1"}}, false, cookie), cookie)
			if resp.status != http.StatusOK || ta.revision() != before+1 {
				t.Fatalf("import: %s", resp)
			}
			if txt := has(t, resp.doc(t), `[data-testid="import-summary"]`).Text(); !strings.Contains(txt, "Added 2") {
				t.Fatalf("after import: %q", txt)
			}
			// Idempotent: the same file again adds nothing and keeps the revision.
			resp = ta.seeOther(t, ta.ownerRequest(http.MethodPost, "/weight/import", url.Values{"csv": {file}, "confirm": {"1"}}, false, cookie), cookie)
			if txt := has(t, resp.doc(t), `[data-testid="import-summary"]`).Text(); !strings.Contains(txt, "Added 0") || !strings.Contains(txt, "2 already") || ta.revision() != before+1 {
				t.Fatalf("re-import: %q, revision %d", txt, ta.revision())
			}
		})
	}
	// A file upload (multipart) works like the pasted text.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "weights.csv")
	fw.Write([]byte("date,weight\n2026-09-26,69.4\n"))
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, "/weight/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(cookie)
	resp := ta.seeOther(t, ta.do(req), cookie)
	if resp.status != http.StatusOK || !strings.Contains(has(t, resp.doc(t), `[data-testid="import-summary"]`).Text(), "1 new") {
		t.Fatalf("upload: %s", resp)
	}
}

func TestWeightImportRefusesABadFileWithItsLinesAndWritesNothing(t *testing.T) {
	ta, cookie := homeApp(t)
	before := ta.revision()
	file := "date,weight\n2026-09-20,70\n2026-09-21,7o\n2026-09-22,900\n"
	resp := ta.ownerRequest(http.MethodPost, "/weight/import", url.Values{"csv": {file}, "confirm": {"1"}}, false, cookie)
	if resp.status != http.StatusUnprocessableEntity || ta.revision() != before {
		t.Fatalf("bad file: %s; revision %d → %d", resp, before, ta.revision())
	}
	d := resp.doc(t)
	errs := has(t, d, `#import-error li`)
	if errs.Length() != 2 || !strings.Contains(errs.Eq(0).Text(), "Line 3") || !strings.Contains(errs.Eq(1).Text(), "Line 4") {
		t.Fatalf("errors %q", errs.Text())
	}
	if has(t, d, `#csv`).AttrOr("aria-invalid", "") != "true" {
		t.Fatal("the field is not marked invalid")
	}
	if n := ta.get("/weight", "", cookie).doc(t).Find(`[data-testid="weight-entry"]`).Length(); n != 0 {
		t.Fatalf("%d entries after a refused file", n)
	}
}

func TestExportsUseTheOwnersZoneAndGuardAgainstCSVInjection(t *testing.T) {
	ta := newTestApp(t, withOwner())
	pub := validPublication("run-1", 0)
	// "@SUM:A1" is a valid ID (the ID rule allows a leading @) and a formula to a spreadsheet.
	acts := pub["activities"].([]any)
	acts = append(acts, map[string]any{"id": "@SUM:A1", "kind": "measurement", "title": "Weigh", "evidenceIds": []any{},
		"recommendation": map[string]any{"section": "routine", "rank": 9}, "payload": map[string]any{"metric": "weight", "unit": "kg"}})
	pub["activities"] = acts
	ta.mustPublish(ta.agentToken(), pub.JSON())
	cookie := ta.login()
	if resp := ta.ownerRequest(http.MethodPost, "/activities/"+url.PathEscape("@SUM:A1")+"/measurement", url.Values{"value": {"72.4"}}, true, cookie); resp.status != http.StatusOK {
		t.Fatalf("save: %s", resp)
	}
	ta.ownerRequest(http.MethodPost, "/activities/"+url.PathEscape("@SUM:A1")+"/measurement", url.Values{"value": {"72.6"}}, true, cookie)

	resp := ta.get("/export/measurements.csv", "", cookie)
	if resp.status != http.StatusOK || !strings.HasPrefix(resp.header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(resp.header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export: %d %v", resp.status, resp.header)
	}
	recs, err := csv.NewReader(bytes.NewReader(resp.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "recorded_at", "metric", "value", "unit", "current", "supersedes", "source", "activity_id", "occurrence_key"}
	if strings.Join(recs[0], ",") != strings.Join(want, ",") || len(recs) != 3 {
		t.Fatalf("export = %q", recs)
	}
	// testNow is 07:00 UTC; Berlin in September is +02:00.
	if recs[1][1] != "2026-09-29T09:00:00+02:00" || recs[1][5] != "false" || recs[2][5] != "true" || recs[2][6] != recs[1][0] {
		t.Fatalf("rows = %q", recs[1:])
	}
	if recs[1][8] != "'@SUM:A1" {
		t.Fatalf("activity cell %q is not defused", recs[1][8])
	}

	for _, name := range []string{"occurrences", "sends"} {
		resp := ta.get("/export/"+name+".csv", "", cookie)
		if resp.status != http.StatusOK {
			t.Fatalf("%s: %s", name, resp)
		}
		if recs, err := csv.NewReader(bytes.NewReader(resp.body)).ReadAll(); err != nil || len(recs) < 1 || len(recs[0]) < 5 {
			t.Fatalf("%s: %q %v", name, recs, err)
		}
	}
	if resp := ta.get("/export/secrets.csv", "", cookie); resp.status != http.StatusNotFound || !strings.HasPrefix(resp.header.Get("Content-Type"), "text/html") {
		t.Fatalf("unknown export: %s (an owner's link answers a page, never raw JSON)", resp)
	}
	if resp := ta.get("/export/measurements.csv", "", nil); resp.status == http.StatusOK {
		t.Fatal("an export without a session")
	}

	resp = ta.get("/export/decisions.json", "", cookie)
	var dec struct {
		TimeZone  string                      `json:"timeZone"`
		Decisions map[string][]map[string]any `json:"decisions"`
	}
	if err := json.Unmarshal(resp.body, &dec); err != nil || resp.status != http.StatusOK {
		t.Fatalf("decisions: %s %v", resp, err)
	}
	// Two states: the weigh-in counts for the day's planned weigh-in too.
	if dec.TimeZone != "Europe/Berlin" || len(dec.Decisions["measurements"]) != 2 || len(dec.Decisions["activityStates"]) != 2 {
		t.Fatalf("decisions = %+v", dec)
	}
	if at, _ := dec.Decisions["measurements"][0]["recorded_at"].(string); at != "2026-09-29T09:00:00+02:00" {
		t.Fatalf("recorded_at %q is not in the owner's zone", at)
	}
}

func TestHomeWeighInLinksToTheWeightPage(t *testing.T) {
	ta, cookie := homeApp(t)
	resp := ta.ownerRequest(http.MethodGet, "/activities/weigh-in-"+testDate+"?expanded=true", nil, true, cookie)
	if href := has(t, resp.doc(t), `[data-testid="weight-link"]`).AttrOr("href", ""); href != "/weight" {
		t.Fatalf("weight link %q", href)
	}
}

func TestExportFileIsNamedWithTheOwnersDate(t *testing.T) {
	ta := newTestApp(t, withOwner())
	ta.mustPublish(ta.agentToken(), validPublication("run-1", 0).JSON())
	cookie := ta.login()
	// 23:30 UTC is already 30 September in Berlin (+02:00).
	ta.clock.Set(time.Date(2026, 9, 29, 23, 30, 0, 0, time.UTC))
	for _, file := range []string{"sends.csv", "decisions.json"} {
		resp := ta.get("/export/"+file, "", cookie)
		if cd := resp.header.Get("Content-Disposition"); resp.status != http.StatusOK || !strings.Contains(cd, "-2026-09-30.") {
			t.Fatalf("%s: %d %q, want the owner's date 2026-09-30", file, resp.status, cd)
		}
	}
}

// TestWeightPageStaysSmallWithManyReadings seeds 20,000 readings (two
// years, a reading every ~53 minutes; 100,000 measured 48 KB, and the old
// page grew with every reading: 2.7 MB at 20,000) through the store's import and
// holds the page to a size a phone loads: the chart draws what 360 points of
// width can show, the list the recent weigh-ins with the rest in the export.
func TestWeightPageStaysSmallWithManyReadings(t *testing.T) {
	ta, cookie := homeApp(t)
	const n = 20_000
	end := testNow.Add(-time.Hour)
	step := 2 * 365 * 24 * time.Hour / n
	readings := make([]weight.Reading, n)
	for i := range readings {
		// Distinct values within a day, so the import's same-day-same-value rule skips none.
		readings[i] = weight.Reading{Line: i + 2, At: end.Add(-time.Duration(n-1-i) * step), Value: 75 + 0.01*float64(i%1000), Unit: "kg"}
	}
	res, err := ta.store.ImportWeights(context.Background(), "plain", readings, false)
	if err != nil || len(res.Added) != n {
		t.Fatalf("import: %d added, %v", len(res.Added), err)
	}
	resp := ta.get("/weight", "", cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("GET /weight: %s", resp)
	}
	t.Logf("/weight with %d readings: %d bytes", n, len(resp.body))
	if len(resp.body) > 300<<10 {
		t.Errorf("/weight is %d bytes with %d readings, want under 300 KB", len(resp.body), n)
	}
	d := resp.doc(t)
	if dots := d.Find(`svg [data-testid="weight-dot"]`).Length(); dots == 0 || dots > 92 {
		t.Errorf("%d dots on a 91-day chart, want one a day at most", dots)
	}
	if path := has(t, d, `path[data-testid="trend-path"]`).AttrOr("d", ""); strings.Count(path, "L") > 92 {
		t.Errorf("trend path has %d segments, want one a day at most", strings.Count(path, "L"))
	}
	listed := d.Find(`[data-testid="weight-entry"]`).Length()
	if listed == 0 || listed > 100 {
		t.Errorf("%d weigh-ins listed, want the recent ones only", listed)
	}
	older := has(t, d, `[data-testid="weight-older"]`)
	if !strings.Contains(older.Text(), fmt.Sprint(n-listed)) || older.Find(`a[href="/export/measurements.csv"]`).Length() != 1 {
		t.Errorf("the note on older weigh-ins %q does not count them and link the export", older.Text())
	}
	for _, sel := range []string{`[data-testid="trend-now"]`, `[data-testid="change-7"]`, `[data-testid="change-30"]`} {
		if has(t, d, sel).Text() == "" {
			t.Errorf("%s is empty", sel)
		}
	}
}

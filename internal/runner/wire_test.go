package runner

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/strictjson"
	"hearth/models"
)

// jsonShape is a type's JSON fields, recursively: name, omitempty and Go
// kind, the way encoding/json reads and writes them.
func jsonShape(t reflect.Type, depth int) string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		prefix := "*"
		if t.Kind() == reflect.Slice {
			prefix = "[]"
		}
		return prefix + jsonShape(t.Elem(), depth)
	}
	if t.Kind() != reflect.Struct || t.PkgPath() == "time" || depth > 4 {
		return t.Kind().String() + ":" + t.String()[strings.LastIndex(t.String(), ".")+1:]
	}
	var fields []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		fields = append(fields, fmt.Sprintf("%s %s", tag, jsonShape(f.Type, depth+1)))
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// TestTheRunnersWireTypesAreHearthsJSONShapes pins each of the runner's
// copies of an API shape to the models type hearth encodes or decodes, so
// a field added, renamed or retyped on one side fails here.
func TestTheRunnersWireTypesAreHearthsJSONShapes(t *testing.T) {
	for _, c := range []struct {
		name         string
		runner, host any
	}{
		{"RunView", RunView{}, contract.RunView{}},
		{"InvocationView", InvocationView{}, contract.InvocationView{}},
		{"RunStartIn", runStartIn{}, contract.RunStartIn{}},
		{"RunStart", runStart{}, contract.RunStart{}},
		{"InvocationFinishIn", invocationFinishIn{}, contract.InvocationFinishIn{}},
		{"PublishReceipt", publishReceipt{}, contract.PublishReceipt{}},
		{"Wake", leasedWake{}, contract.Wake{}},
		{"WakeAck", wakeAck{}, contract.WakeAck{}},
		{"RefusalError", RefusalError{}, contract.RefusalError{}},
	} {
		got, want := jsonShape(reflect.TypeOf(c.runner), 0), jsonShape(reflect.TypeOf(c.host), 0)
		// The kinds' type names differ by package only; the fields must not.
		if strings.ReplaceAll(got, "leasedWake", "Wake") != want {
			t.Errorf("%s:\nrunner %s\nhearth %s", c.name, got, want)
		}
	}
	// The due report is read, not written: its fields must be hearth's.
	due := reflect.TypeOf(dueReport{}).Field(0).Type.Elem()
	item := reflect.TypeOf(models.DueItem{})
	for i := range due.NumField() {
		f, ok := item.FieldByName(due.Field(i).Name)
		if !ok || f.Tag != due.Field(i).Tag || f.Type != due.Field(i).Type {
			t.Errorf("dueReport's %s is not models.DueItem's", due.Field(i).Name)
		}
	}
	for _, c := range [][2]any{
		{triggerSchedule, contract.TriggerSchedule}, {triggerManual, contract.TriggerManual}, {triggerWatch, contract.TriggerWatch},
		{runSucceeded, contract.RunSucceeded}, {runFailed, contract.RunFailed}, {runUnknown, contract.RunUnknown},
		{invocationPublished, contract.InvocationPublished}, {invocationConflict, contract.InvocationConflict},
		{invocationRefused, contract.InvocationRefused}, {invocationFailed, contract.InvocationFailed}, {invocationUnknown, contract.InvocationUnknown},
		{maxBodyBytes, models.MaxBodyBytes}, {maxReasonLen, models.MaxReasonLen}, {maxRefusalErrors, contract.MaxRefusalErrors},
		{publicationRunID("daily-brief-x", 2), contract.PublicationRunID("daily-brief-x", 2)},
	} {
		if fmt.Sprint(c[0]) != fmt.Sprint(c[1]) {
			t.Errorf("runner %v, hearth %v", c[0], c[1])
		}
	}
}

// TestTheRunnerRedactsARefusalExactlyAsHearthKeepsIt compares the runner's
// copy of the redaction with hearth's on errors that quote message text,
// long paths, unterminated quotes and more errors than are kept.
func TestTheRunnerRedactsARefusalExactlyAsHearthKeepsIt(t *testing.T) {
	long := strings.Repeat("Hi Ana, see you Thursday ", 20)
	fes := []strictjson.FieldError{
		{Path: "/replyDrafts/0/candidates/0", Expected: "at most 10 characters", Found: `"Hi Ana, see you Thursday at the hospital…"`},
		{Path: "/activities/1/kind", Expected: "one of: task, reply", Found: `"chore"`},
		{Path: "/activities/Hi Ana, I can't make it/title", Expected: `string "` + long + `"`, Found: `"unterminated ` + long},
		{Path: "/" + strings.Repeat("a/", 200), Expected: `an ID like "daily-brief"`, Found: `string "x\"y z"`},
		{Path: "", Expected: "", Found: "number 3"},
		{Path: "/x", Expected: "one of " + strings.Repeat(`"task", `, 40), Found: strings.Repeat(`"ok" `, 30)},
		{Path: "/people/0/name", Expected: "a name", Found: `"` + strings.Repeat("é", 40) + `"`},
	}
	for len(fes) < maxRefusalErrors+5 {
		fes = append(fes, strictjson.FieldError{Path: fmt.Sprintf("/activities/%d/id", len(fes)), Expected: "an ID", Found: fmt.Sprintf("%q", long[:len(fes)*3])})
	}
	got, want := refusalErrorsOf(fes), contract.RefusalErrorsOf(fes)
	if len(got) != len(want) || len(got) != maxRefusalErrors {
		t.Fatalf("%d errors, hearth keeps %d (of %d)", len(got), len(want), len(fes))
	}
	for i := range got {
		if got[i] != RefusalError(want[i]) {
			t.Errorf("error %d:\nrunner %+v\nhearth %+v", i, got[i], want[i])
		}
	}
}

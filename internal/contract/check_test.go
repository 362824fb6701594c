package contract_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/internal/strictjson"
)

// refusalOf checks body and returns its errors, failing unless it is a refusal.
func refusalOf(t *testing.T, body []byte) []strictjson.FieldError {
	t.Helper()
	_, _, err := contract.CheckResult(body)
	var invalid *contract.ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("got %v, want a validation error", err)
	}
	return invalid.Errors
}

func paths(fes []strictjson.FieldError) []string {
	out := make([]string, len(fes))
	for i, fe := range fes {
		out[i] = fe.Path
	}
	return out
}

func TestOneRefusalNamesUnknownFieldsWrongTypesAndShapeErrorsTogether(t *testing.T) {
	p := storetest.DailyBrief("run-1", 0).With("colour", "red").With("generatedAt", "yesterday")
	a := storetest.Task("a1", "life-1")
	a["title"] = 42
	a["payload"] = map[string]any{"size": 3}
	b := storetest.Task("a2", "life-1")
	b["kind"] = "chore"
	p.Add("activities", a, b)
	p.Add("people", storetest.Person("bad id!", "life-1"))

	got := refusalOf(t, p.JSON())
	want := []string{
		"/activities/0/payload/size", // unknown nested field (decoder)
		"/activities/0/title",        // wrong type (decoder), not also "must not be empty"
		"/activities/1/kind",         // unknown enum value (shape)
		"/colour",                    // unknown field (decoder)
		"/generatedAt",               // bad timestamp (shape)
		"/people/0/id",               // bad ID (shape)
	}
	if !slices.Equal(paths(got), want) {
		t.Fatalf("paths %q, want %q (every class, once per path, ordered by path): %+v", paths(got), want, got)
	}
	if e := got[1]; e.Expected != "string" || e.Found != "number 42" {
		t.Errorf("the wrong type is reported as the decoder saw it: %+v", e)
	}
}

func TestAValidPublicationStaysValid(t *testing.T) {
	p := storetest.DailyBrief("run-1", 0).Add("activities", storetest.Task("a1", "life-1")).
		Add("people", storetest.Person("p1", "life-1")).Add("replyDrafts", storetest.Draft("d1", []string{"hi"}, "life-1"))
	r, hash, err := contract.CheckResult(p.JSON())
	if err != nil {
		t.Fatalf("valid publication refused: %v", err)
	}
	if r.RunID != "run-1" || len(r.Activities) != 1 || !strings.HasPrefix(hash, "sha256:") {
		t.Fatalf("result %+v hash %q", r, hash)
	}
}

func TestDuplicateKeysStayASyntaxErrorWhateverElseIsWrong(t *testing.T) {
	_, _, err := contract.CheckResult([]byte(`{"runId":"a","runId":"b","colour":1,"generatedAt":"yesterday"}`))
	var syntax *strictjson.SyntaxError
	if !errors.As(err, &syntax) {
		t.Fatalf("got %v, want a syntax error", err)
	}
}

func TestARefusedPublicationKeepsItsHashAndWhatBound(t *testing.T) {
	p := storetest.DailyBrief("run-7", 0).With("colour", "red").Add("activities", storetest.Task("a1", "life-1"))
	r, hash, err := contract.CheckResult(p.JSON())
	want, _ := strictjson.Hash(p.JSON())
	if err == nil || hash != want {
		t.Fatalf("err %v, hash %q, want a refusal with hash %q", err, hash, want)
	}
	if r.RunID != "run-7" || len(r.Activities) != 1 || r.Activities[0].ID != "a1" {
		t.Fatalf("what bound: %+v", r)
	}
}

func TestABodyThatIsNotAnObjectIsOneErrorAtTheRoot(t *testing.T) {
	got := refusalOf(t, []byte(`[1, 2]`))
	if len(got) != 1 || got[0].Path != "" {
		t.Fatalf("got %+v, want one error at the root (nothing about the fields an empty result lacks)", got)
	}
}

func TestAnItemOfTheWrongTypeIsReportedOnceNotFieldByField(t *testing.T) {
	p := storetest.DailyBrief("run-1", 0)
	p["activities"] = []any{"a task"}
	p["people"] = map[string]any{}
	got := refusalOf(t, p.JSON())
	if want := []string{"/activities/0", "/people"}; !slices.Equal(paths(got), want) {
		t.Fatalf("paths %q, want %q: %+v", paths(got), want, got)
	}
}

func TestAMissingPayloadIsReportedWhereItIsMissing(t *testing.T) {
	a := storetest.Task("a1", "life-1")
	delete(a, "payload")
	got := refusalOf(t, storetest.DailyBrief("run-1", 0).Add("activities", a).JSON())
	if want := []string{"/activities/0/payload"}; !slices.Equal(paths(got), want) {
		t.Fatalf("paths %q, want %q: %+v", paths(got), want, got)
	}
}

func TestRefusalErrorsAreOrderedByPathWithIndexesAsNumbers(t *testing.T) {
	p := storetest.DailyBrief("run-1", 0)
	for i := range 12 {
		a := storetest.Task(fmt.Sprintf("a%d", i), "life-1")
		if i == 2 || i == 10 {
			a["title"] = ""
		}
		if i == 11 {
			a["colour"] = "red"
		}
		p.Add("activities", a)
	}
	got := refusalOf(t, p.JSON())
	if want := []string{"/activities/2/title", "/activities/10/title", "/activities/11/colour"}; !slices.Equal(paths(got), want) {
		t.Fatalf("paths %q, want %q", paths(got), want)
	}
}

func TestTheOmittedNoteStaysLastWhenTheDecoderStopsCounting(t *testing.T) {
	p := storetest.DailyBrief("run-1", 0).With("generatedAt", "yesterday")
	for i := range 150 {
		p[fmt.Sprintf("x%03d", i)] = i
	}
	got := refusalOf(t, p.JSON())
	last := got[len(got)-1]
	if last.Path != "" || !strings.HasPrefix(last.Message, "50 more errors omitted") {
		t.Fatalf("last error %+v, want the omitted note", last)
	}
	if !slices.Contains(paths(got), "/generatedAt") {
		t.Fatalf("the shape error is missing beside 100 unknown fields")
	}
	invalid := &contract.ValidationError{}
	_, _, err := contract.CheckResult(p.JSON())
	errors.As(err, &invalid)
	joined := invalid.Join([]strictjson.FieldError{{Path: "/brief", Message: "ref"}})
	if n := len(joined.Errors); joined.Errors[n-1].Message != last.Message || joined.Errors[n-2].Path != "/x099" {
		t.Fatalf("after Join the note is not last: %+v", joined.Errors[n-3:])
	}
}

func TestJoinDropsReferenceErrorsWhereTheShapeIsAlreadyRefused(t *testing.T) {
	var none *contract.ValidationError
	if none.Join(nil) != nil {
		t.Fatal("nothing to refuse is no refusal")
	}
	p := storetest.DailyBrief("run-1", 0).Add("activities", storetest.Task("a1", "bad id!"))
	_, _, err := contract.CheckResult(p.JSON())
	var invalid *contract.ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("got %v", err)
	}
	joined := invalid.Join([]strictjson.FieldError{
		{Path: "/activities/0/evidenceIds/0", Message: "unknown source ref"},
		{Path: "/activities/0/personId", Message: "unknown person"},
	})
	if want := []string{"/activities/0/evidenceIds/0", "/activities/0/personId"}; !slices.Equal(paths(joined.Errors), want) {
		t.Fatalf("paths %q, want %q", paths(joined.Errors), want)
	}
	if joined.Errors[0].Message == "unknown source ref" {
		t.Fatalf("the reference error replaced the shape error at the same path: %+v", joined.Errors[0])
	}
}

package strictjson

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

type activity struct {
	ID      string  `json:"id"`
	Kind    string  `json:"kind"`
	Title   string  `json:"title"`
	Note    *string `json:"note"`
	Count   int     `json:"count,omitempty"`
	Payload Raw     `json:"payload"`
}

type plan struct {
	Name       string            `json:"name"`
	Activities []activity        `json:"activities"`
	Tags       map[string]string `json:"tags,omitempty"`
	Score      *float64          `json:"score"`
	Done       bool              `json:"done,omitempty"`
}

type measurement struct {
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
}

const validPlan = `{
  "name": "week 1",
  "activities": [
    {"id": "a1", "kind": "task", "title": "Walk", "payload": {"steps": 3}},
    {"id": "a2", "kind": "measurement", "title": "Weigh", "note": "am", "count": 2,
     "payload": {"unit": "kg", "value": 71.5}}
  ],
  "tags": {"a/b": "x"},
  "score": 0.5
}`

// shape decodes body into a plan and returns its field errors, failing if the error is not a *ShapeError.
func shape(t *testing.T, body string) []FieldError {
	t.Helper()
	var p plan
	err := Decode([]byte(body), &p)
	var se *ShapeError
	if !errors.As(err, &se) {
		t.Fatalf("Decode(%s) = %v (%T), want *ShapeError", body, err, err)
	}
	return se.Errors
}

// syntax decodes body into a plan and returns its *SyntaxError.
func syntax(t *testing.T, body string) *SyntaxError {
	t.Helper()
	var p plan
	err := Decode([]byte(body), &p)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("Decode(%q) = %v (%T), want *SyntaxError", body, err, err)
	}
	return se
}

func only(t *testing.T, errs []FieldError) FieldError {
	t.Helper()
	if len(errs) != 1 {
		t.Fatalf("got %d errors, want 1: %+v", len(errs), errs)
	}
	return errs[0]
}

func TestDecodeBindsValidDocument(t *testing.T) {
	var p plan
	if err := Decode([]byte(validPlan), &p); err != nil {
		t.Fatal(err)
	}
	if p.Name != "week 1" || len(p.Activities) != 2 || p.Tags["a/b"] != "x" || *p.Score != 0.5 {
		t.Fatalf("unexpected result %+v", p)
	}
	a := p.Activities[1]
	if a.Note == nil || *a.Note != "am" || a.Count != 2 || p.Activities[0].Note != nil {
		t.Fatalf("unexpected activity %+v", a)
	}
	if a.Payload.Path() != "/activities/1/payload" || !a.Payload.IsObject() {
		t.Fatalf("payload path %q object %v", a.Payload.Path(), a.Payload.IsObject())
	}
}

func TestDecodeRejectsDuplicateKeyAtDepth(t *testing.T) {
	se := syntax(t, `{"name":"n","activities":[{"id":"a","payload":{"x":1,"x":2}}]}`)
	if se.Path != "/activities/0/payload/x" || se.Msg != `duplicate key "x"` {
		t.Fatalf("got %+v", se)
	}
}

func TestDecodeRejectsTrailingData(t *testing.T) {
	for _, body := range []string{`{} {}`, `{}x`, `{}]`, `{} null`, "{}\n\"a\""} {
		se := syntax(t, body)
		if !strings.Contains(se.Msg, "trailing data") {
			t.Errorf("%q: got %+v", body, se)
		}
	}
	if se := syntax(t, `{}  x`); se.Offset != 4 {
		t.Errorf("offset %d, want 4 (the first trailing byte)", se.Offset)
	}
}

func TestDecodeAcceptsSurroundingWhitespace(t *testing.T) {
	var m map[string]string
	if err := Decode([]byte(" \r\n\t{\"a\":\"b\"} \n"), &m); err != nil || m["a"] != "b" {
		t.Fatalf("got %v %v", m, err)
	}
}

func TestDecodeRejectsEmptyBody(t *testing.T) {
	for _, body := range []string{"", " \n\t\r"} {
		if se := syntax(t, body); se.Msg != "empty body" {
			t.Errorf("%q: got %+v", body, se)
		}
	}
}

func TestDecodeRejectsMalformedJSON(t *testing.T) {
	cases := map[string]string{
		`{"name":`:            "/name",
		`{"name" "x"}`:        "/name",
		`{"activities":[1,]}`: "/activities/1",
		`[1}`:                 "/1",
		`{'a':1}`:             "",
		"{\"a\":\"\xff\"}":    "",
		`{"a":tru}`:           "/a",
		`{"a":01}`:            "",
	}
	for body, path := range cases {
		if se := syntax(t, body); se.Path != path {
			t.Errorf("%q: path %q, want %q (%v)", body, se.Path, path, se)
		}
	}
}

func TestDecodeRejectsNestingDeeperThan64(t *testing.T) {
	var r Raw
	ok := strings.Repeat("[", 64) + strings.Repeat("]", 64)
	if err := Decode([]byte(ok), &r); err != nil {
		t.Fatalf("64 levels: %v", err)
	}
	for _, n := range []int{65, 100000} {
		body := strings.Repeat(`{"a":[`, n/2+1)
		err := Decode([]byte(body), &r)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Msg != "nesting deeper than 64" {
			t.Fatalf("depth %d: got %v", n, err)
		}
	}
}

func TestDecodeRejectsNullAtTopLevel(t *testing.T) {
	fe := only(t, shape(t, `null`))
	if fe.Path != "" || fe.Expected != "object" || fe.Found != "null" {
		t.Fatalf("got %+v", fe)
	}
}

func TestDecodeRejectsNullNestedInArray(t *testing.T) {
	fe := only(t, shape(t, `{"name":"n","activities":[null]}`))
	if fe.Path != "/activities/0" || fe.Found != "null" || fe.Expected != "object" {
		t.Fatalf("got %+v", fe)
	}
}

func TestDecodeRejectsNullForOptionalPointer(t *testing.T) {
	fe := only(t, shape(t, `{"name":"n","activities":[],"score":null}`))
	if fe.Path != "/score" || fe.Expected != "number" || fe.Found != "null" {
		t.Fatalf("got %+v", fe)
	}
}

func TestDecodeRejectsUnknownFieldAtTopLevel(t *testing.T) {
	fe := only(t, shape(t, `{"name":"n","activities":[],"foo":1}`))
	want := `unknown field "foo"; allowed: activities, done, name, score, tags`
	if fe.Path != "/foo" || fe.Message != want || fe.Found != `field "foo"` {
		t.Fatalf("got %+v", fe)
	}
}

func TestDecodeRejectsUnknownFieldNestedWithPointer(t *testing.T) {
	body := `{"name":"n","activities":[{"id":"a","kind":"k","title":"t","payload":1},
		{"id":"b","kind":"k","title":"t","payload":1,"titel":"x"}]}`
	fe := only(t, shape(t, body))
	if fe.Path != "/activities/1/titel" || !strings.HasSuffix(fe.Message, "allowed: count, id, kind, note, payload, title") {
		t.Fatalf("got %+v", fe)
	}
}

func TestDecodeReportsMissingRequiredField(t *testing.T) {
	fe := only(t, shape(t, `{"name":"n","activities":[{"id":"a","kind":"k","payload":{}}]}`))
	if fe.Path != "/activities/0/title" || fe.Message != `missing required field "title"` || fe.Expected != "string" {
		t.Fatalf("got %+v", fe)
	}
}

func TestDecodeRequiresSlicesButAllowsEmpty(t *testing.T) {
	fe := only(t, shape(t, `{"name":"n"}`))
	if fe.Path != "/activities" || fe.Expected != "array" {
		t.Fatalf("got %+v", fe)
	}
	var p plan
	if err := Decode([]byte(`{"name":"n","activities":[]}`), &p); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeAcceptsAbsentOptionalFields(t *testing.T) {
	var p plan
	if err := Decode([]byte(`{"name":"n","activities":[]}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.Score != nil || p.Tags != nil || p.Done {
		t.Fatalf("got %+v", p)
	}
}

func TestDecodeRejectsWrongTypes(t *testing.T) {
	cases := []struct{ body, path, expected, found string }{
		{`{"name":12,"activities":[]}`, "/name", "string", "number 12"},
		{`{"name":"n","activities":{}}`, "/activities", "array", "object"},
		{`{"name":"n","activities":["x"]}`, "/activities/0", "object", `string "x"`},
		{`{"name":"n","activities":[],"done":"yes"}`, "/done", "boolean", `string "yes"`},
		{`{"name":"n","activities":[],"score":true}`, "/score", "number", "boolean true"},
		{`{"name":"n","activities":[],"tags":[]}`, "/tags", "object", "array"},
		{`{"name":"n","activities":[],"tags":{"k":1}}`, "/tags/k", "string", "number 1"},
		{`[]`, "", "object", "array"},
	}
	for _, c := range cases {
		fe := only(t, shape(t, c.body))
		if fe.Path != c.path || fe.Expected != c.expected || fe.Found != c.found {
			t.Errorf("%s: got %+v", c.body, fe)
		}
		if fe.Message != "expected "+c.expected+", found "+c.found {
			t.Errorf("%s: message %q", c.body, fe.Message)
		}
	}
}

func TestDecodeIntegerRejectsFractionsAndExponents(t *testing.T) {
	for _, n := range []string{"1.5", "3.0", "1e2", "1e400", "-0.0"} {
		body := `{"id":"a","kind":"k","title":"t","payload":1,"count":` + n + `}`
		var a activity
		var se *ShapeError
		if err := Decode([]byte(body), &a); !errors.As(err, &se) {
			t.Fatalf("%s: got %v", n, err)
		}
		if fe := only(t, se.Errors); fe.Path != "/count" || fe.Expected != "integer" || fe.Found != "number "+n {
			t.Errorf("%s: got %+v", n, fe)
		}
	}
	var a activity
	err := Decode([]byte(`{"id":"a","kind":"k","title":"t","payload":1,"count":99999999999999999999}`), &a)
	if err == nil || !strings.Contains(err.Error(), "integer between -9223372036854775808 and 9223372036854775807") {
		t.Fatalf("overflow: got %v", err)
	}
	if err := Decode([]byte(`{"id":"a","kind":"k","title":"t","payload":1,"count":-3}`), &a); err != nil || a.Count != -3 {
		t.Fatalf("got %d %v", a.Count, err)
	}
}

func TestDecodeRejectsFloatOutOfRange(t *testing.T) {
	fe := only(t, shape(t, `{"name":"n","activities":[],"score":1e400}`))
	if fe.Path != "/score" || fe.Expected != "number within float64 range" {
		t.Fatalf("got %+v", fe)
	}
}

func TestDecodeCollectsAllErrorsInDocumentOrder(t *testing.T) {
	body := `{"zz":1,"activities":[{"id":1,"kind":"k","title":"t","payload":null}],"name":null}`
	got := shape(t, body)
	want := []string{"/zz", "/activities/0/id", "/activities/0/payload", "/name"}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, fe := range got {
		if fe.Path != want[i] {
			t.Errorf("error %d at %q, want %q", i, fe.Path, want[i])
		}
	}
}

func TestDecodeCapsErrorsAt100(t *testing.T) {
	body := `{"name":"n","activities":[` + strings.TrimSuffix(strings.Repeat(`1,`, 250), ",") + `]}`
	got := shape(t, body)
	if len(got) != 101 || got[99].Path != "/activities/99" {
		t.Fatalf("got %d errors", len(got))
	}
	if last := got[100]; last.Path != "" || !strings.HasPrefix(last.Message, "150 more errors omitted") {
		t.Fatalf("last error %+v", last)
	}
}

func TestDecodeLeavesTargetUnchangedOnError(t *testing.T) {
	p := plan{Name: "keep", Done: true}
	if err := Decode([]byte(`{"name":"new","activities":[],"foo":1}`), &p); err == nil {
		t.Fatal("want error")
	}
	if p.Name != "keep" || !p.Done {
		t.Fatalf("target modified: %+v", p)
	}
	if err := Decode([]byte(`{"name":"new","activities":[]}`), &p); err != nil || !p.Done {
		t.Fatalf("absent optional field should keep prior value: %+v %v", p, err)
	}
}

func TestRawBindPrefixesPaths(t *testing.T) {
	var p plan
	if err := Decode([]byte(validPlan), &p); err != nil {
		t.Fatal(err)
	}
	var m measurement
	if err := p.Activities[1].Payload.Bind(&m); err != nil || m.Unit != "kg" || m.Value != 71.5 {
		t.Fatalf("got %+v %v", m, err)
	}
	err := p.Activities[0].Payload.Bind(&m)
	var se *ShapeError
	if !errors.As(err, &se) || len(se.Errors) != 3 {
		t.Fatalf("got %v", err)
	}
	want := []string{"/activities/0/payload/steps", "/activities/0/payload/unit", "/activities/0/payload/value"}
	for i, fe := range se.Errors {
		if fe.Path != want[i] {
			t.Errorf("error %d at %q, want %q", i, fe.Path, want[i])
		}
	}
}

func TestPointerEscapesSlashAndTilde(t *testing.T) {
	fe := only(t, shape(t, `{"name":"n","activities":[],"a/b":1}`))
	if fe.Path != "/a~1b" {
		t.Errorf("got %q", fe.Path)
	}
	fe = only(t, shape(t, `{"name":"n","activities":[],"tags":{"m~n":2}}`))
	if fe.Path != "/tags/m~0n" {
		t.Errorf("got %q", fe.Path)
	}
	if se := syntax(t, `{"tags":{"~/":"1","~/":"2"}}`); se.Path != "/tags/~0~1" {
		t.Errorf("got %q", se.Path)
	}
	fe = only(t, shape(t, `{"name":"n","activities":[],"":1}`))
	if fe.Path != "/" {
		t.Errorf("empty key: got %q", fe.Path)
	}
}

func TestFoundTruncatesLongValues(t *testing.T) {
	long := strings.Repeat("é", 100)
	fe := only(t, shape(t, `{"name":"n","activities":[],"done":"`+long+`"}`))
	if fe.Found != `string "`+strings.Repeat("é", 60)+`…"` {
		t.Fatalf("got %q", fe.Found)
	}
}

func TestDecodeFlattensEmbeddedStructs(t *testing.T) {
	type base struct {
		ID string `json:"id"`
	}
	type withBase struct {
		base
		Name string `json:"name"`
	}
	var w withBase
	if err := Decode([]byte(`{"id":"x","name":"y"}`), &w); err != nil || w.ID != "x" {
		t.Fatalf("got %+v %v", w, err)
	}
}

func TestDecodeRejectsUnsupportedGoTypes(t *testing.T) {
	type bad struct {
		C chan int `json:"c"`
	}
	var b bad
	err := Decode([]byte(`{}`), &b)
	if err == nil || errors.As(err, new(*ShapeError)) || errors.As(err, new(*SyntaxError)) {
		t.Fatalf("want programming error, got %v", err)
	}
	if err := Decode([]byte(`{}`), b); err == nil {
		t.Fatal("non-pointer target accepted")
	}
	type recursive struct {
		Kids []recursive `json:"kids"`
	}
	var r recursive
	if err := Decode([]byte(`{"kids":[{"kids":[]}]}`), &r); err != nil || len(r.Kids) != 1 {
		t.Fatalf("recursive type: %v", err)
	}
}

func TestErrorStringsNamePaths(t *testing.T) {
	err := Decode([]byte(`{"name":1,"activities":[]}`), &plan{})
	if got := err.Error(); !strings.Contains(got, `"/name": expected string, found number 1`) {
		t.Errorf("got %q", got)
	}
	err = Decode([]byte(`{"a":1,"a":2}`), &plan{})
	if got := err.Error(); !strings.Contains(got, `duplicate key "a"`) || !strings.Contains(got, `"/a"`) {
		t.Errorf("got %q", got)
	}
}

func TestHashIgnoresKeyOrderAndWhitespace(t *testing.T) {
	a, err := Hash([]byte(`{"b":[1,2],"a":{"y":"z","x":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Hash([]byte("{ \"a\" : {\"x\":true , \"y\":\"z\"},\n\"b\":[ 1, 2 ] }"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b || !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+64 {
		t.Fatalf("%s != %s", a, b)
	}
}

func TestHashNormalisesNumbers(t *testing.T) {
	a, _ := Hash([]byte(`{"n":1.0}`))
	b, _ := Hash([]byte(`{"n":1}`))
	c, _ := Hash([]byte(`{"n":1e0}`))
	if a == "" || a != b || b != c {
		t.Fatalf("%q %q %q", a, b, c)
	}
}

func TestHashDiffersForDifferentValues(t *testing.T) {
	a, _ := Hash([]byte(`{"n":1}`))
	b, _ := Hash([]byte(`{"n":2}`))
	c, _ := Hash([]byte(`{"n":"1"}`))
	if a == b || a == c || b == c {
		t.Fatalf("%q %q %q", a, b, c)
	}
}

func TestCanonicalSortsKeysAndStripsWhitespace(t *testing.T) {
	got, err := Canonical([]byte(`{ "b": 1.50, "a": [true, null, "\u0041"] }`))
	if err != nil || string(got) != `{"a":[true,null,"A"],"b":1.5}` {
		t.Fatalf("got %s %v", got, err)
	}
}

func TestCanonicalRejectsWhatDecodeRejects(t *testing.T) {
	for _, body := range []string{``, `{"a":1,"a":2}`, `{} {}`, strings.Repeat("[", 65) + strings.Repeat("]", 65), `1e400`} {
		_, err := Canonical([]byte(body))
		if !errors.As(err, new(*SyntaxError)) {
			t.Errorf("%q: got %v", body, err)
		}
	}
}

func TestRawZeroValueBindReportsMissing(t *testing.T) {
	var r Raw
	var m measurement
	if err := r.Bind(&m); !errors.As(err, new(*ShapeError)) || r.IsObject() {
		t.Fatalf("got %v", err)
	}
	if !reflect.DeepEqual(m, measurement{}) {
		t.Fatal("target modified")
	}
}

func TestPathsDecodeEscapedKeys(t *testing.T) {
	fe := only(t, shape(t, `{"name":"n","activities":[],"tags":{"a\u002fb":1}}`))
	if fe.Path != "/tags/a~1b" {
		t.Errorf("got %q", fe.Path)
	}
	fe = only(t, shape(t, `{"name":"n","activities":[],"t\u0061gs":{"k":[]}}`))
	if fe.Path != "/tags/k" {
		t.Errorf("got %q", fe.Path)
	}
	var m map[string]Raw
	if err := Decode([]byte(`{"x\u007e":{"k":1},"\ud83d\ude00/":[{"\u0061":{}}]}`), &m); err != nil {
		t.Fatal(err)
	}
	if got := m["x~"].Path(); got != "/x~0" {
		t.Errorf("Raw path %q", got)
	}
	var ds []map[string]measurement
	err := m["😀/"].Bind(&ds)
	var se *ShapeError
	if !errors.As(err, &se) || len(se.Errors) != 2 || se.Errors[0].Path != "/😀~1/0/a/unit" || se.Errors[1].Path != "/😀~1/0/a/value" {
		t.Fatalf("got %v", err)
	}
}

package strictjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type fuzzItem struct {
	ID      string            `json:"id"`
	N       int64             `json:"n,omitempty"`
	F       *float64          `json:"f"`
	OK      *bool             `json:"ok"`
	Tags    []string          `json:"tags,omitempty"`
	Meta    map[string]string `json:"meta,omitempty"`
	Payload Raw               `json:"payload"`
}

type fuzzDoc struct {
	Name  string      `json:"name"`
	Items []fuzzItem  `json:"items"`
	Child *fuzzDoc    `json:"child"`
	Extra *Raw        `json:"extra"`
	Grid  [][]float64 `json:"grid,omitempty"`
}

// checkErr fails unless err is one of the error kinds the HTTP layer knows how to map.
func checkErr(t *testing.T, err error) {
	t.Helper()
	var syn *SyntaxError
	var shp *ShapeError
	switch {
	case err == nil, errors.As(err, &syn):
	case errors.As(err, &shp):
		if len(shp.Errors) == 0 || len(shp.Errors) > maxErrors+1 {
			t.Fatalf("ShapeError with %d errors", len(shp.Errors))
		}
		for _, fe := range shp.Errors {
			if fe.Path != "" && !strings.HasPrefix(fe.Path, "/") {
				t.Fatalf("bad pointer %q", fe.Path)
			}
		}
	default:
		t.Fatalf("unexpected error type %T: %v", err, err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"name":"n","items":[{"id":"a","payload":{"unit":"kg","value":1}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstReference(t, data)
		var d fuzzDoc
		err := Decode(data, &d)
		checkErr(t, err)
		if !json.Valid(data) && !errors.As(err, new(*SyntaxError)) {
			t.Fatalf("invalid JSON not reported as SyntaxError: %v", err)
		}
		if err == nil {
			for _, it := range d.Items {
				var m measurement
				checkErr(t, it.Payload.Bind(&m))
				var s map[string]string
				checkErr(t, it.Payload.Bind(&s))
				if !strings.HasPrefix(it.Payload.Path(), "/items/") {
					t.Fatalf("payload path %q", it.Payload.Path())
				}
			}
			if d.Extra != nil {
				var ds []fuzzDoc
				checkErr(t, d.Extra.Bind(&ds))
			}
		}
		// Raw accepts any value but null, so only syntax or a null root can fail.
		var r Raw
		rawErr := Decode(data, &r)
		if rawErr != nil && !errors.As(rawErr, new(*SyntaxError)) && strings.Trim(string(data), " \t\r\n") != "null" {
			t.Fatalf("binding into Raw can only fail on syntax or null, got %v", rawErr)
		}
		_, cerr := Hash(data)
		if cerr != nil && !errors.As(cerr, new(*SyntaxError)) {
			t.Fatalf("Hash error type %T", cerr)
		}
	})
}

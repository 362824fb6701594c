package contract_test

import (
	"errors"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/internal/strictjson"
)

// FuzzParseResult feeds arbitrary bodies through the decoder and the shape
// validator, as CheckResult does (shape validation runs on what bound even
// beside decoding errors): they must never panic, and every failure must
// be one the API maps to a 4xx (syntax → 400, validation → 422), never a
// 5xx.
func FuzzParseResult(f *testing.F) {
	f.Add(storetest.DailyBrief("run-1", 0).Add("activities", storetest.Task("a1", "life-1")).Add("people", storetest.Person("p1", "life-1")).
		Add("replyDrafts", storetest.Draft("d1", []string{"hi"}, "life-1")).JSON())
	f.Add([]byte(`{"runId":"x","activities":[{"kind":"measurement","payload":{"metric":"weight","unit":"kg"}}]}`))
	f.Add([]byte(`{"activities":[{"kind":"reply","payload":null}]}`))
	f.Add([]byte(`{"routineDefinitions":[{"steps":[{"kind":"measurement"}],"completionRule":{"kind":"min-steps"},"trigger":{"kind":"event"}}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, hash, err := contract.CheckResult(body)
		if err == nil {
			return
		}
		var syntax *strictjson.SyntaxError
		var invalid *contract.ValidationError
		if !errors.As(err, &syntax) && !errors.As(err, &invalid) {
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
		if invalid != nil && len(invalid.Errors) == 0 {
			t.Fatal("a refusal without errors")
		}
		if _, hashErr := strictjson.Hash(body); hashErr == nil && invalid != nil && hash == "" {
			// A shape-invalid but well-formed body must still hash, for the replay check.
			t.Fatal("a well-formed refused body lost its hash")
		}
	})
}

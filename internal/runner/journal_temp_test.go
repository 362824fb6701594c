package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A runner killed while saving the journal for invocation 2, after the
// temp file was written but before its rename, never began invocation 2:
// recovery goes by the journal, once, and the temp goes.
func TestATempJournalACrashLeftBeforeItsRenameIsNotRecoveredAsARun(t *testing.T) {
	h := &fakeHearth{}
	r, _, _ := resumeRunner(t, h)
	j := runJournal{RunID: "daily-brief-5", PubRunID: "daily-brief-5-1", Job: "daily-brief", Trigger: "manual", Phase: phaseInvoking, Invocation: 1}
	if err := r.save(j); err != nil {
		t.Fatal(err)
	}
	next := j
	next.PubRunID, next.Invocation = "daily-brief-5-2", 2
	b, _ := json.Marshal(next)
	temp := filepath.Join(r.state, "runs", ".daily-brief-5.json.4242.tmp")
	writeTestFile(t, temp, string(b))
	if err := r.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(h.finishedRuns) != 1 {
		t.Fatalf("runs finished %v: want the journal's run ended once", h.finishedRuns)
	}
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Fatalf("the temp journal outlived recovery: %v", err)
	}
}

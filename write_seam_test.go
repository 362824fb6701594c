package hearth_test

import (
	"go/ast"
	"testing"
)

// TestEveryModelsWriteGoesThroughCommit holds "every write goes through
// the one seam": Store.write, the raw write transaction, is named by
// commit alone, so every change reaches committed and what keys on it,
// those that bump no revision too. Test files are held to it as well: a
// test that writes around commit would test a path services cannot take.
func TestEveryModelsWriteGoesThroughCommit(t *testing.T) {
	fset, files := goFiles(t, "models", true)
	inCommit := 0
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			// A method value (s.write passed along) bypasses the seam as
			// surely as a call, so every mention counts, not only calls.
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "write" {
					return true
				}
				if fn.Name.Name == "commit" && fn.Recv != nil {
					inCommit++
					return true
				}
				t.Errorf("%s: %s uses the raw Store.write; go through commit (rev 0 when nothing agent-visible changes)", fset.Position(sel.Pos()), fn.Name.Name)
				return true
			})
		}
	}
	if inCommit != 1 {
		t.Fatalf("commit names Store.write %d times, want once: the test no longer reads the seam", inCommit)
	}
}

// TestStoreListenersHearOnlyFromCommitted holds "committed is the one
// after-commit seam" for the store's own listeners: the wake-up long polls
// (signalDirty) and the event streams waiting for a session's end
// (sessionsEnded) are told by
// committed alone, never by a service after its own write.
func TestStoreListenersHearOnlyFromCommitted(t *testing.T) {
	fset, files := goFiles(t, "models", false)
	for _, listener := range []string{"signalDirty", "sessionsEnded"} {
		found := 0
		for _, f := range files {
			for _, c := range callsOf(fset, f, listener) {
				found++
				if c.fn != "committed" {
					t.Errorf("%s: %s calls %s outside committed", c.pos, c.fn, listener)
				}
			}
		}
		if found == 0 {
			t.Errorf("nothing calls %s: the test no longer reads the seam", listener)
		}
	}
}

package agent

import (
	"os"
	"strings"
	"testing"
)

// agentInstructionFiles are the names coding agents read, in the directory
// they work in, as instructions meant for themselves (Codex: AGENTS.md and
// its override; Claude Code: CLAUDE.md; Gemini CLI: GEMINI.md).
var agentInstructionFiles = []string{"AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "GEMINI.md"}

// TestTheKitHoldsNoFileACodingAgentTakesAsItsOwn keeps the job's
// instructions under a name that an agent editing hearth's source would
// not follow; the runner names them AGENTS.md only in a job's work dir.
func TestTheKitHoldsNoFileACodingAgentTakesAsItsOwn(t *testing.T) {
	for _, name := range agentInstructionFiles {
		if _, err := os.Lstat(name); !os.IsNotExist(err) {
			t.Errorf("agent/ holds %s, which a coding agent editing agent/ reads as its own instructions (err %v)", name, err)
		}
	}
	if InstructionsFile != "AGENTS.md" {
		t.Errorf("the job's work dir names the instructions %q; Codex reads AGENTS.md", InstructionsFile)
	}
}

// TestTheJobsInstructionsAreEmbedded holds Instructions to the kit's file:
// an empty answer would hand Codex a job with no rules.
func TestTheJobsInstructionsAreEmbedded(t *testing.T) {
	if got := string(Instructions()); !strings.HasPrefix(got, "# hearth job: instructions for the agent\n") {
		t.Fatalf("Instructions() starts %.60q, want the kit's instructions", got)
	}
}

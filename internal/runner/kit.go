package runner

import (
	"fmt"
	"strings"

	"hearth/agent"
	"hearth/internal/contract"
)

// KitPrompt is the job kit's prompt for an owner's --job run without
// --prompt-file; a job the kit does not know is an error naming the jobs
// it does.
func KitPrompt(job string) (string, error) {
	if p, ok := agent.Prompt(job); ok {
		return p, nil
	}
	return "", fmt.Errorf("the job kit has no prompt for %q (it has %s): pass --prompt-file", job, strings.Join(agent.Jobs(), ", "))
}

// contextPath is the agent context a job's run reads: compact, unless
// the job reasons over the history compact leaves out.
func contextPath(job string) string {
	if agent.FullContext(job) {
		return "/api/agent-context"
	}
	return "/api/agent-context?compact=true"
}

// runPrompt is the prompt the agent receives: the kit's, the schedule's
// or the owner's prompt, then a Run section naming the job, the runId to
// publish under, the context (its dir of parts, and whole), the life
// folder and, for a wake-up, why it came. Reasons are
// job keys, chat names and counts (wake), never message text.
func runPrompt(j runJournal, contextFile, contextDir, lifeDir string, revision int64) string {
	var b strings.Builder
	if p := strings.TrimRight(j.Prompt, "\n"); p != "" {
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	b.WriteString("## Run\n\n")
	fmt.Fprintf(&b, "- job: %s\n- runId: %s\n- expectedRevision: %d\n- trigger: %s\n- context dir: %s (cat index.json, then each part you need: one command per file)\n- context file: %s\n",
		j.Job, j.PubRunID, revision, j.Trigger, contextDir, contextFile)
	if lifeDir != "" {
		fmt.Fprintf(&b, "- life folder: %s\n", lifeDir)
	}
	if j.Trigger == contract.TriggerWatch && len(j.WakeReasons) > 0 {
		fmt.Fprintf(&b, "- woken by %d mark(s):\n", j.WakeMarks)
		for _, r := range j.WakeReasons {
			fmt.Fprintf(&b, "  - %s\n", oneLine(r))
		}
	}
	return b.String()
}

// oneLine keeps a reason on its line of the prompt.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

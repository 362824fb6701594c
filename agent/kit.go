// Package agent is hearth's job kit: the instructions an agent finds in a
// job's working directory (job-instructions.md here, written there as
// AGENTS.md) and one prompt per job (prompts/<job>.md). It is embedded, so
// an installed hearth carries the kit its runner hands to Codex. The
// instructions are not named AGENTS.md in the source tree, where a coding
// agent editing hearth would take them for its own.
package agent

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

//go:embed job-instructions.md prompts/*.md
var files embed.FS

// InstructionsFile is the name the runner gives the kit's instructions in a
// job's work dir: the file Codex reads there as its instructions.
const InstructionsFile = "AGENTS.md"

// Instructions is the job's instructions, written as InstructionsFile: what
// the context file holds, how to cite evidence, stable IDs, what never to
// invent, how completions are proven and what the one answer is.
func Instructions() []byte {
	b, _ := files.ReadFile("job-instructions.md")
	return b
}

// Prompt returns the kit's prompt for job; ok is false for a job the kit
// has no prompt for.
func Prompt(job string) (string, bool) {
	if strings.ContainsAny(job, "/\\") {
		return "", false
	}
	b, err := files.ReadFile("prompts/" + job + ".md")
	return string(b), err == nil
}

// Jobs lists the jobs the kit has a prompt for, sorted.
func Jobs() []string {
	entries, _ := fs.ReadDir(files, "prompts")
	var jobs []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			jobs = append(jobs, name)
		}
	}
	slices.Sort(jobs)
	return jobs
}

// FullContext reports whether job reasons over history the compact context
// leaves out (observations, occurrences, routine metrics), so its runner
// reads the whole context rather than the compact one.
func FullContext(job string) bool {
	return job == "messages" || job == "routine-review"
}

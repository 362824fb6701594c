package views

import (
	"fmt"
	"slices"
	"strings"

	"hearth/internal/contract"
)

// published reports whether a run's publications left any item.
func published(f contract.WorkFates) bool {
	return f.Drafts+f.Tasks+f.RequestsCompleted > 0
}

// fateJobs lists the jobs of fates in order, once each.
func fateJobs(fates []contract.WorkFates) []string {
	var jobs []string
	for _, f := range fates {
		if !slices.Contains(jobs, f.Job) {
			jobs = append(jobs, f.Job)
		}
	}
	return jobs
}

// windowWords says a job's fates over the last days days, or that it had no run then.
func windowWords(fates []contract.WorkFates, job string, days int) string {
	i := slices.IndexFunc(fates, func(f contract.WorkFates) bool { return f.Job == job && f.Days == days })
	if i < 0 {
		return fmt.Sprintf("Last %d days: no runs.", days)
	}
	f := fates[i]
	runs := plural(f.Runs, "run")
	if !published(f) {
		return fmt.Sprintf("Last %d days: %s, nothing published.", days, runs)
	}
	return fmt.Sprintf("Last %d days, %s: %s", days, runs, fatesWords(f))
}

// fatesWords says what runs published and what became of it, leaving out
// the empty counts: "3 drafts: 1 sent as written, 1 sent after an edit, 1
// declined; 2 tasks: 1 done, 1 open; $0.20 per accepted item". A cost
// appears only where the runner reported one.
func fatesWords(f contract.WorkFates) string {
	var parts []string
	if f.Drafts > 0 {
		parts = append(parts, plural(f.Drafts, "draft")+": "+counts([]count{{f.SentAsWritten, "sent as written"}, {f.SentEdited, "sent after an edit"},
			{f.Replaced, "replaced by your own reply"}, {f.HandedOff, "handed off to Beeper"}, {f.Declined, "declined"},
			{f.DraftsWithdrawn, "withdrawn by the agent"}, {f.DraftsOpen, "open"}}))
	}
	if f.Tasks > 0 {
		parts = append(parts, plural(f.Tasks, "task")+": "+counts([]count{{f.Done, "done"}, {f.Partial, "partly done"}, {f.Skipped, "skipped"},
			{f.Dismissed, "dismissed"}, {f.TasksWithdrawn, "withdrawn by the agent"}, {f.TasksOpen, "open"}}))
	}
	if f.RequestsCompleted > 0 {
		parts = append(parts, plural(f.RequestsCompleted, "request")+" completed")
	}
	switch {
	case f.CostPerAcceptedUSD != nil:
		parts = append(parts, fmt.Sprintf("$%.2f per accepted item", *f.CostPerAcceptedUSD))
	case f.CostUSD != nil:
		parts = append(parts, fmt.Sprintf("$%.2f with nothing accepted yet", *f.CostUSD))
	}
	return strings.Join(parts, "; ") + "."
}

type count struct {
	n    int
	word string
}

// counts joins the non-zero counts.
func counts(cs []count) string {
	var out []string
	for _, c := range cs {
		if c.n > 0 {
			out = append(out, fmt.Sprintf("%d %s", c.n, c.word))
		}
	}
	return strings.Join(out, ", ")
}

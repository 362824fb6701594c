// Command fakeagent stands in for the external agent in the runner's e2e
// tests: a scripted runtime, no model. It reads the context file the runner
// wrote, counts its invocations, reports usage, and prints a publication.
// FAKE_AGENT_MODE chooses a behaviour: ok (default), conflict-once (the
// first invocation publishes something itself, so the runner's publication
// meets a revision conflict), sleep (until killed), fail (exit 3), garbage,
// invalid-once (the first invocation prints a publication hearth refuses,
// with message-like text in the refused field), invalid-always,
// conflict-then-sleep. It checks that the prompt on stdin is the one in
// HEARTH_PROMPT_FILE, and appends it (NUL-terminated) to
// FAKE_AGENT_PROMPT_LOG when set.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"hearth/internal/apiclient"
)

func main() {
	if os.Getenv("HEARTH_TOKEN") != "" {
		fmt.Fprintln(os.Stderr, "fakeagent: hearth's token leaked into the agent's environment")
		os.Exit(9)
	}
	ctxFile := os.Getenv("HEARTH_CONTEXT_FILE")
	var ac struct {
		Revision int64 `json:"revision"`
	}
	b, err := os.ReadFile(ctxFile)
	if err != nil || json.Unmarshal(b, &ac) != nil {
		fmt.Fprintln(os.Stderr, "fakeagent: no readable context file:", err)
		os.Exit(4)
	}
	stdin, _ := io.ReadAll(os.Stdin)
	promptFile, err := os.ReadFile(os.Getenv("HEARTH_PROMPT_FILE"))
	if err != nil || !bytes.Equal(stdin, promptFile) {
		fmt.Fprintf(os.Stderr, "fakeagent: %d bytes of prompt on stdin, %d in HEARTH_PROMPT_FILE (%v): want the same\n", len(stdin), len(promptFile), err)
		os.Exit(6)
	}
	if log := os.Getenv("FAKE_AGENT_PROMPT_LOG"); log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			f.Write(append(stdin, 0))
			f.Close()
		}
	}
	n := count()
	if pidFile := os.Getenv("FAKE_AGENT_PID_FILE"); pidFile != "" {
		os.WriteFile(pidFile, fmt.Appendf(nil, "%d", os.Getpid()), 0o600)
	}
	os.WriteFile(os.Getenv("HEARTH_USAGE_FILE"), []byte(`{"tokens": 1200, "costUsd": 0.25}`), 0o600)
	switch os.Getenv("FAKE_AGENT_MODE") {
	case "sleep":
		time.Sleep(time.Hour)
	case "fail":
		os.Exit(3)
	case "garbage":
		fmt.Println("this is not a publication")
		return
	case "conflict-once":
		if n == 1 {
			interfere(ac.Revision)
		}
	case "conflict-then-sleep":
		if n == 1 {
			interfere(ac.Revision)
		} else {
			time.Sleep(time.Hour)
		}
	}
	runID := os.Getenv("HEARTH_RUN_ID")
	activityID := "agent-" + strings.ReplaceAll(runID, "/", "-")
	if mode := os.Getenv("FAKE_AGENT_MODE"); mode == "invalid-always" || mode == "invalid-once" && n == 1 {
		// An ID made of a message's words: hearth refuses it and quotes it back.
		activityID = InvalidActivityID
	}
	pub := map[string]any{"runId": "set-by-the-runner", "jobKey": "set-by-the-runner", "expectedRevision": 0,
		"generatedAt": time.Now().UTC().Format(time.RFC3339), "sourceRefs": []any{}, "people": []any{},
		"activities": []any{map[string]any{"id": activityID, "kind": "task",
			"title": "Written by the fake agent", "evidenceIds": []any{}, "payload": map[string]any{}}},
		"replyDrafts": []any{}, "retractions": []any{}, "completedRequests": []any{}}
	json.NewEncoder(os.Stdout).Encode(pub)
}

// InvalidActivityID stands for message contents an agent wrongly put in a
// field hearth refuses; it must never reach a prompt or the Runs page.
const InvalidActivityID = "Hi Ana, I can't make Thursday after all because my mother is in hospital again"

// count appends this invocation to FAKE_AGENT_COUNT_FILE and returns how many there were.
func count() int {
	path := os.Getenv("FAKE_AGENT_COUNT_FILE")
	if path == "" {
		return 1
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		f.WriteString(os.Getenv("HEARTH_RUN_ID") + "\n")
		f.Close()
	}
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

// interfere publishes with its own credential, moving the revision on.
func interfere(revision int64) {
	body, _ := json.Marshal(map[string]any{"runId": "interference", "jobKey": "other", "expectedRevision": revision,
		"generatedAt": time.Now().UTC().Format(time.RFC3339), "sourceRefs": []any{}, "people": []any{}, "activities": []any{},
		"replyDrafts": []any{}, "retractions": []any{}, "completedRequests": []any{}})
	c := apiclient.New(os.Getenv("FAKE_AGENT_URL"), os.Getenv("FAKE_AGENT_OWN_TOKEN"))
	resp, err := c.Do(context.Background(), http.MethodPost, "/api/agent-results", body)
	if err != nil || resp.Status != http.StatusCreated {
		fmt.Fprintln(os.Stderr, "fakeagent: interference failed", err)
		os.Exit(5)
	}
}

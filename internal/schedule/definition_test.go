package schedule

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

const validFile = `---
id: morning-brief
job: morning
cron: "30 6 * * *"
zone: Europe/Berlin
limits:
  maxInvocations: 2
  deadline: 5m
notifyOnSuccess: true
---

Write the morning brief from today's calendar and open requests.
`

func mustParse(t *testing.T, id, file string) Definition {
	t.Helper()
	d, err := ParseDefinition(id, []byte(file))
	if err != nil {
		t.Fatalf("ParseDefinition: %v", err)
	}
	return d
}

func TestParseDefinition(t *testing.T) {
	d := mustParse(t, "morning-brief", validFile)
	if d.ID != "morning-brief" || d.Job != "morning" || d.Rule.Cron() != "30 6 * * *" || d.Rule.Location().String() != "Europe/Berlin" ||
		d.Limits != (Limits{MaxInvocations: 2, Deadline: 5 * time.Minute}) || !d.NotifyOnSuccess ||
		d.Prompt != "Write the morning brief from today's calendar and open requests." {
		t.Errorf("parsed %+v", d)
	}

	// Defaults: no limits, no notifyOnSuccess; a one-off long past stays readable.
	d = mustParse(t, "once", "---\nid: once\njob: tidy\nat: 2020-01-01T09:00:00+01:00\nzone: UTC\n---\nTidy up.\n")
	if d.Limits != DefaultLimits() || d.NotifyOnSuccess || !d.Rule.OneOff() || !d.Rule.At().Equal(time.Date(2020, 1, 1, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("defaults: %+v", d)
	}
}

func TestParseDefinitionIsStrict(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(validFile, old) {
			panic("fixture lacks " + old)
		}
		return strings.Replace(validFile, old, new, 1)
	}
	tests := []struct {
		name      string
		fileID    string
		file      string
		wantField string
		wantMsg   string
	}{
		{"unknown field", "", edit("job: morning\n", "job: morning\nowner: me\n"), "owner", "unknown field"},
		{"unknown limits field", "", edit("  deadline: 5m\n", "  deadline: 5m\n  budget: 3\n"), "budget", "unknown field"},
		{"prompt in the frontmatter", "", edit("job: morning\n", "job: morning\nprompt: hi\n"), "prompt", "unknown field"},
		{"both at and cron", "", edit("zone:", "at: 2026-06-01T09:00:00Z\nzone:"), "at", "exclusive"},
		{"neither at nor cron", "", edit("cron: \"30 6 * * *\"\n", ""), "at", "needs at or cron"},
		{"id differs from the file name", "evening-brief", validFile, "id", "does not match the file name"},
		{"id outside the alphabet", "", edit("id: morning-brief", "id: morning brief"), "id", "invalid ID"},
		{"missing job", "", edit("job: morning\n", ""), "job", "invalid job key"},
		{"missing zone", "", edit("zone: Europe/Berlin\n", ""), "zone", "missing"},
		{"unknown zone", "", edit("Europe/Berlin", "Europe/Atlantis"), "zone", "unknown zone"},
		{"at without offset", "", edit("cron: \"30 6 * * *\"", "at: 2026-06-01T09:00:00"), "at", "has no offset"},
		{"bad cron", "", edit("30 6 * * *", "30 6 * *"), "cron", "has 4 fields"},
		{"endAt on a one-off", "", edit("cron: \"30 6 * * *\"", "at: 2026-06-01T09:00:00Z\nendAt: 2026-07-01T00:00:00Z"), "endAt", "never recurs"},
		{"duplicate key", "", edit("job: morning\n", "job: morning\njob: evening\n"), "frontmatter", "already defined"},
		{"null value", "", edit("job: morning\n", "job: morning\nendAt: ~\n"), "frontmatter.endAt", "null"},
		{"empty value", "", edit("job: morning\n", "job: morning\nendAt:\n"), "frontmatter.endAt", "null"},
		{"anchor and alias", "", edit("job: morning", "job: &j morning"), "frontmatter.job", "anchors and aliases"},
		{"explicit tag", "", edit("job: morning", "job: !!str morning"), "frontmatter.job", "explicit tags"},
		{"yes is not a boolean", "", edit("notifyOnSuccess: true", "notifyOnSuccess: yes"), "notifyOnSuccess", "not a boolean"},
		{"quoted boolean", "", edit("notifyOnSuccess: true", `notifyOnSuccess: "true"`), "notifyOnSuccess", "not a boolean"},
		{"four invocations", "", edit("maxInvocations: 2", "maxInvocations: 4"), "limits.maxInvocations", "out of range"},
		{"zero invocations", "", edit("maxInvocations: 2", "maxInvocations: 0"), "limits.maxInvocations", "out of range"},
		{"invocations as a float", "", edit("maxInvocations: 2", "maxInvocations: 2.0"), "limits.maxInvocations", "whole number"},
		{"invocations as a string", "", edit("maxInvocations: 2", `maxInvocations: "2"`), "limits.maxInvocations", "whole number"},
		{"invocations in hex", "", edit("maxInvocations: 2", "maxInvocations: 0x2"), "limits.maxInvocations", "whole number"},
		{"deadline over 10 minutes", "", edit("deadline: 5m", "deadline: 11m"), "limits.deadline", "out of range"},
		{"deadline under a minute", "", edit("deadline: 5m", "deadline: 30s"), "limits.deadline", "out of range"},
		{"deadline with a fraction of a second", "", edit("deadline: 5m", "deadline: 90.5s"), "limits.deadline", "out of range"},
		{"deadline not a duration", "", edit("deadline: 5m", "deadline: soon"), "limits.deadline", "not a duration"},
		{"limits not a mapping", "", edit("limits:\n  maxInvocations: 2\n  deadline: 5m\n", "limits: 3\n"), "frontmatter", "cannot unmarshal"},
		{"frontmatter not a mapping", "", "---\n- id\n- job\n---\nhi\n", "frontmatter", "not a mapping"},
		{"second YAML document", "", edit("notifyOnSuccess: true\n", "notifyOnSuccess: true\n...\nextra: 1\n"), "frontmatter", "more than one YAML document"},
		{"empty frontmatter", "", "---\n---\nhi\n", "frontmatter", "not a mapping"},
		{"empty prompt", "", edit("Write the morning brief from today's calendar and open requests.", "  "), "prompt", "must not be empty"},
		{"prompt too long", "", edit("Write the morning brief", strings.Repeat("x", MaxPromptBytes)), "prompt", "too long"},
		{"no frontmatter", "", "Write the brief.\n", "frontmatter", "missing"},
		{"frontmatter not closed", "", strings.Replace(validFile, "---\n\n", "", 1), "frontmatter", "not closed"},
		{"CRLF line ends", "", strings.ReplaceAll(validFile, "\n", "\r\n"), "frontmatter", "missing"},
		{"byte order mark", "", "\ufeff" + validFile, "frontmatter", "missing"},
		{"invalid UTF-8", "", validFile + "\xff", "file", "not text"},
		{"NUL byte", "", validFile + "\x00", "file", "not text"},
		{"file too large", "", validFile + strings.Repeat("\n", MaxDefinitionBytes), "file", "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.fileID
			if id == "" {
				id = "morning-brief"
			}
			_, err := ParseDefinition(id, []byte(tt.file))
			var v *ValidationError
			if !errors.As(err, &v) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseDefinition error = %v, want a ValidationError", err)
			}
			if v.Field != tt.wantField || !strings.Contains(v.Message, tt.wantMsg) {
				t.Errorf("got %s: %q; want %s: …%s…", v.Field, v.Message, tt.wantField, tt.wantMsg)
			}
		})
	}
}

func TestFingerprintIgnoresFormatting(t *testing.T) {
	base := mustParse(t, "morning-brief", validFile).Fingerprint()
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(base) {
		t.Fatalf("fingerprint %q", base)
	}
	same := map[string]string{
		"keys reordered, quoting and comments": `---
# the morning job
notifyOnSuccess: true
zone: "Europe/Berlin"
limits: {deadline: 300s, maxInvocations: 2}
cron: '30  6 * *  *'
job: 'morning'
id: morning-brief
---
Write the morning brief from today's calendar and open requests.


`,
	}
	for name, file := range same {
		if got := mustParse(t, "morning-brief", file).Fingerprint(); got != base {
			t.Errorf("%s: fingerprint %s, want %s", name, got, base)
		}
	}

	// Defaults are part of the canonical form, written or not.
	a := mustParse(t, "x", "---\nid: x\njob: j\nat: 2026-06-01T11:00:00+02:00\nzone: UTC\n---\nP\n")
	b := mustParse(t, "x", "---\nid: x\njob: j\nat: 2026-06-01T09:00:00Z\nzone: UTC\nlimits:\n  maxInvocations: 3\n  deadline: 10m\nnotifyOnSuccess: false\n---\nP\n")
	if a.Fingerprint() != b.Fingerprint() {
		t.Errorf("explicit defaults and the same instant in another offset changed the fingerprint")
	}
}

func TestFingerprintSeesEveryField(t *testing.T) {
	seen := map[string]string{mustParse(t, "morning-brief", validFile).Fingerprint(): "original"}
	changes := map[string][2]string{
		"prompt":          {"open requests.", "open requests!"},
		"job":             {"job: morning", "job: evening"},
		"cron":            {"30 6 * * *", "31 6 * * *"},
		"zone":            {"Europe/Berlin", "Europe/Paris"},
		"endAt":           {"zone:", "endAt: 2027-01-01T00:00:00Z\nzone:"},
		"maxInvocations":  {"maxInvocations: 2", "maxInvocations: 3"},
		"deadline":        {"deadline: 5m", "deadline: 6m"},
		"notifyOnSuccess": {"notifyOnSuccess: true", "notifyOnSuccess: false"},
	}
	for name, c := range changes {
		fp := mustParse(t, "morning-brief", strings.Replace(validFile, c[0], c[1], 1)).Fingerprint()
		if prev, dup := seen[fp]; dup {
			t.Errorf("changing %s kept the fingerprint of %s", name, prev)
		}
		seen[fp] = name
	}
}

func TestCanonicalForm(t *testing.T) {
	got := string(mustParse(t, "morning-brief", validFile).Canonical())
	want := `{"cron":"30 6 * * *","format":"hearth.schedule.v1","id":"morning-brief","job":"morning",` +
		`"limits":{"deadlineSeconds":300,"maxInvocations":2},"notifyOnSuccess":true,` +
		`"prompt":"Write the morning brief from today's calendar and open requests.","zone":"Europe/Berlin"}`
	if got != want {
		t.Errorf("Canonical()\n got %s\nwant %s", got, want)
	}
}

func TestRenderRoundTrips(t *testing.T) {
	rule := mustRule(t, RuleSpec{Cron: "0 7 * * 1-5", EndAt: "2027-01-01T00:00:00+01:00"}, "Europe/Berlin")
	d := Definition{ID: "weekday-brief", Job: "morning", Rule: rule, Limits: DefaultLimits(), Prompt: "\nBrief me.\n"}
	out, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	want := `---
id: weekday-brief
job: morning
cron: 0 7 * * 1-5
zone: Europe/Berlin
endAt: "2027-01-01T00:00:00+01:00"
limits:
  maxInvocations: 3
  deadline: 10m
notifyOnSuccess: false
---

Brief me.
`
	if string(out) != want {
		t.Errorf("Render()\n%s\nwant\n%s", out, want)
	}
	back := mustParse(t, "weekday-brief", string(out))
	if back.Fingerprint() != d.Fingerprint() {
		t.Errorf("round trip changed the fingerprint")
	}

	if _, err := (Definition{ID: "x", Job: "j", Rule: rule, Prompt: "p"}).Render(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Render with zero limits = %v, want a validation error", err)
	}
}

// TestReadmeExample keeps the README's definition example parseable and its
// fingerprint description honest.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../../docs/schedules-and-runner.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```markdown\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("README has no markdown example")
	}
	d := mustParse(t, "morning-brief", block)
	if d.Rule.EndAt().IsZero() || d.Limits != DefaultLimits() || !strings.Contains(string(d.Canonical()), `"format":"hearth.schedule.v1"`) {
		t.Errorf("README example parsed as %+v", d)
	}
}

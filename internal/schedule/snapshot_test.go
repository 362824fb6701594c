package schedule

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseCanonicalRoundTripsAndRefusesAnythingElse(t *testing.T) {
	for _, file := range []string{validFile, "---\nid: once\njob: tidy\nat: 2030-01-01T09:00:00+01:00\nzone: Asia/Tokyo\n---\nTidy up.\n",
		"---\nid: ends\njob: j\ncron: 0 9 * * MON-FRI\nzone: UTC\nendAt: 2031-01-01T00:00:00+01:00\n---\nx\n"} {
		d := mustParse(t, strings.Split(strings.Split(file, "id: ")[1], "\n")[0], file)
		back, err := ParseCanonical(d.Canonical())
		if err != nil {
			t.Fatalf("ParseCanonical(%s): %v", d.Canonical(), err)
		}
		if back.Fingerprint() != d.Fingerprint() || back.Rule.Location().String() != d.Rule.Location().String() {
			t.Errorf("round trip of %s changed it: %s", d.ID, back.Canonical())
		}
	}
	good := string(mustParse(t, "morning-brief", validFile).Canonical())
	for name, bad := range map[string]string{
		"unknown field":   strings.Replace(good, `"format"`, `"extra":1,"format"`, 1),
		"other format":    strings.Replace(good, CanonicalFormat, "hearth.schedule.v0", 1),
		"not canonical":   strings.Replace(good, `{"cron"`, `{ "cron"`, 1),
		"invalid content": strings.Replace(good, `"maxInvocations":2`, `"maxInvocations":9`, 1),
		"not JSON":        "---\nid: x\n",
	} {
		if _, err := ParseCanonical([]byte(bad)); err == nil {
			t.Errorf("%s: ParseCanonical accepted %s", name, bad)
		}
	}
}

func TestChangesNameWhatAFileChanged(t *testing.T) {
	a := mustParse(t, "morning-brief", validFile)
	b := mustParse(t, "morning-brief", strings.NewReplacer(`"30 6 * * *"`, `"30 7 * * *"`, "open requests.", "open requests.\nThen email the team.").Replace(validFile))
	got := Changes(a, b)
	var fields []string
	for _, c := range got {
		fields = append(fields, c.Field)
	}
	if !slices.Equal(fields, []string{"timing", "prompt"}) || got[0].Approved != "cron 30 6 * * *" || got[0].File != "cron 30 7 * * *" ||
		!strings.HasSuffix(got[1].File, "(later lines changed)") {
		t.Errorf("Changes = %+v", got)
	}
	if c := Changes(a, a); len(c) != 0 {
		t.Errorf("Changes of a definition with itself = %+v", c)
	}
}

func TestCopyToCopiesRegularFilesOnly(t *testing.T) {
	s, _, _ := newStore(t)
	other := mustParse(t, "morning-brief", validFile)
	other.ID = "gone"
	if _, err := s.Create(other); err != nil {
		t.Fatal(err)
	}
	must(t, s.Retire("gone"))
	must(t, os.Symlink(filepath.Join(s.DefinitionsDir(), "morning-brief.md"), filepath.Join(s.DefinitionsDir(), "link.md")))

	dest := filepath.Join(t.TempDir(), "backup.schedules")
	n, skipped, err := s.CopyTo(dest)
	if err != nil || n != 2 || !slices.Equal(skipped, []string{"definitions/link.md: symlink"}) {
		t.Fatalf("CopyTo = %d, %v, %v", n, skipped, err)
	}
	for _, p := range []string{"definitions/morning-brief.md", "retired/gone.md"} {
		fi, err := os.Lstat(filepath.Join(dest, p))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v", p, fi, err)
		}
	}
	restored := NewStore(t.TempDir())
	must(t, os.Rename(dest, filepath.Join(filepath.Dir(restored.DefinitionsDir()))))
	if _, err := restored.Load("morning-brief"); err != nil {
		t.Errorf("the copy does not load: %v", err)
	}
	if _, _, err := s.CopyTo(filepath.Dir(restored.DefinitionsDir())); err == nil {
		t.Error("CopyTo wrote into an existing directory")
	}
	empty, _, err := NewStore(t.TempDir()).CopyTo(filepath.Join(t.TempDir(), "empty"))
	if err != nil || empty != 0 {
		t.Errorf("CopyTo of a data dir without schedules = %d, %v", empty, err)
	}
}

// TestChangesJSONIsFieldApprovedAndFile: the API's "changes" stay the field
// and its two raw values; the definitions a page words them from stay out.
func TestChangesJSONIsFieldApprovedAndFile(t *testing.T) {
	a := mustParse(t, "morning-brief", validFile)
	b := mustParse(t, "morning-brief", strings.Replace(validFile, `"30 6 * * *"`, `"30 7 * * *"`, 1))
	got, err := json.Marshal(Changes(a, b))
	if err != nil || string(got) != `[{"field":"timing","approved":"cron 30 6 * * *","file":"cron 30 7 * * *"}]` {
		t.Errorf("JSON of Changes = %s, %v", got, err)
	}
}

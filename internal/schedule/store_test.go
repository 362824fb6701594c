package schedule

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// newStore returns a store on a temp data dir holding one created
// definition, and its approved fingerprint.
func newStore(t *testing.T) (*Store, Definition, string) {
	t.Helper()
	s := NewStore(t.TempDir())
	d := mustParse(t, "morning-brief", validFile)
	fp, err := s.Create(d)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return s, d, fp
}

func TestCreateWritesAtomicallyAndPrivately(t *testing.T) {
	s, d, fp := newStore(t)
	if fp != d.Fingerprint() {
		t.Errorf("Create returned %s, want %s", fp, d.Fingerprint())
	}
	p := filepath.Join(s.DefinitionsDir(), "morning-brief.md")
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode = %v (%v), want 0600", fi.Mode(), err)
	}
	for _, dir := range []string{filepath.Dir(s.DefinitionsDir()), s.DefinitionsDir(), s.RetiredDir()} {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode = %v (%v), want 0700", dir, fi.Mode(), err)
		}
	}
	entries, _ := os.ReadDir(s.DefinitionsDir())
	if len(entries) != 1 {
		t.Errorf("definitions/ holds %d entries, want only the definition (no temp files)", len(entries))
	}
	got, err := s.LoadApproved("morning-brief", fp)
	if err != nil || got.Fingerprint() != fp || got.Prompt != d.Prompt {
		t.Fatalf("LoadApproved = %+v, %v", got, err)
	}

	// Writing the same definition again is a replay; a different one is refused.
	if again, err := s.Create(d); err != nil || again != fp {
		t.Errorf("Create again = %s, %v; want the same fingerprint", again, err)
	}
	other := d
	other.Prompt = "Something else."
	if _, err := s.Create(other); !errors.Is(err, ErrExists) {
		t.Errorf("Create of a different definition with the same ID = %v, want ErrExists", err)
	}
	if back, _ := s.Load("morning-brief"); back.Fingerprint() != fp {
		t.Errorf("a refused Create replaced the file")
	}
	if _, err := s.Create(Definition{ID: "x"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Create of an invalid definition = %v, want ErrInvalid", err)
	}
}

func TestLoadQuarantines(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, s *Store) string // returns the ID to load
		want  QuarantineReason
	}{
		{"symlink to an identical file", func(t *testing.T, s *Store) string {
			p := filepath.Join(s.DefinitionsDir(), "morning-brief.md")
			elsewhere := filepath.Join(t.TempDir(), "morning-brief.md")
			must(t, os.Rename(p, elsewhere))
			must(t, os.Symlink(elsewhere, p))
			return "morning-brief"
		}, QuarantineSymlink},
		{"escape via ../", func(t *testing.T, s *Store) string {
			data, _ := os.ReadFile(filepath.Join(s.DefinitionsDir(), "morning-brief.md"))
			must(t, os.WriteFile(filepath.Join(filepath.Dir(s.DefinitionsDir()), "outside.md"), data, 0o600))
			return "../outside"
		}, QuarantineEscape},
		{"escape via a subdirectory", func(t *testing.T, s *Store) string { return "sub/morning-brief" }, QuarantineEscape},
		{"definitions directory is a symlink", func(t *testing.T, s *Store) string {
			elsewhere := filepath.Join(t.TempDir(), "defs")
			must(t, os.Rename(s.DefinitionsDir(), elsewhere))
			must(t, os.Symlink(elsewhere, s.DefinitionsDir()))
			return "morning-brief"
		}, QuarantineEscape},
		{"missing", func(t *testing.T, s *Store) string {
			must(t, os.Remove(filepath.Join(s.DefinitionsDir(), "morning-brief.md")))
			return "morning-brief"
		}, QuarantineMissing},
		{"a directory", func(t *testing.T, s *Store) string {
			must(t, os.Mkdir(filepath.Join(s.DefinitionsDir(), "dir.md"), 0o700))
			return "dir"
		}, QuarantineNotRegular},
		{"a FIFO (and reading it does not hang)", func(t *testing.T, s *Store) string {
			must(t, syscall.Mkfifo(filepath.Join(s.DefinitionsDir(), "fifo.md"), 0o600))
			return "fifo"
		}, QuarantineNotRegular},
		{"edited after approval", func(t *testing.T, s *Store) string {
			p := filepath.Join(s.DefinitionsDir(), "morning-brief.md")
			data, _ := os.ReadFile(p)
			must(t, os.WriteFile(p, []byte(strings.Replace(string(data), "morning brief", "evening brief", 1)), 0o600))
			return "morning-brief"
		}, QuarantineChanged},
		{"replaced by another valid definition", func(t *testing.T, s *Store) string {
			p := filepath.Join(s.DefinitionsDir(), "morning-brief.md")
			must(t, os.WriteFile(p, []byte(strings.Replace(validFile, "30 6", "0 3", 1)), 0o600))
			return "morning-brief"
		}, QuarantineChanged},
		{"edited into an invalid file", func(t *testing.T, s *Store) string {
			p := filepath.Join(s.DefinitionsDir(), "morning-brief.md")
			must(t, os.WriteFile(p, []byte(strings.Replace(validFile, "job: morning", "job: morning\nowner: me", 1)), 0o600))
			return "morning-brief"
		}, QuarantineInvalid},
		{"ID outside the alphabet", func(t *testing.T, s *Store) string { return "morning brief" }, QuarantineInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, fp := newStore(t)
			id := tt.setup(t, s)
			_, err := s.LoadApproved(id, fp)
			var q *QuarantineError
			if !errors.As(err, &q) || !errors.Is(err, ErrQuarantined) {
				t.Fatalf("LoadApproved(%q) = %v, want a quarantine", id, err)
			}
			if q.Reason != tt.want {
				t.Errorf("reason = %s (%v), want %s", q.Reason, err, tt.want)
			}
		})
	}
}

func TestLoadApprovedChecksTheFingerprint(t *testing.T) {
	s, _, fp := newStore(t)
	var q *QuarantineError
	if _, err := s.LoadApproved("morning-brief", ""); !errors.As(err, &q) || q.Reason != QuarantineUnapproved {
		t.Errorf("no approval: %v, want unapproved", err)
	}
	// Reformatting keeps the meaning, so it keeps the approval.
	p := filepath.Join(s.DefinitionsDir(), "morning-brief.md")
	reformatted := strings.Replace(validFile, "limits:\n  maxInvocations: 2\n  deadline: 5m\n", "limits: {deadline: 300s, maxInvocations: 2}  # tighter\n", 1)
	must(t, os.WriteFile(p, []byte(reformatted), 0o600))
	if _, err := s.LoadApproved("morning-brief", fp); err != nil {
		t.Errorf("reformatted file: %v, want it still approved", err)
	}
	var v *ValidationError
	must(t, os.WriteFile(p, []byte("not a definition"), 0o600))
	if _, err := s.Load("morning-brief"); !errors.As(err, &v) {
		t.Errorf("invalid file: %v, want the ValidationError as the cause", err)
	}
}

func TestRetire(t *testing.T) {
	s, d, _ := newStore(t)
	must(t, s.Retire("morning-brief"))
	if _, err := os.Lstat(filepath.Join(s.DefinitionsDir(), "morning-brief.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("definition still in definitions/: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(s.RetiredDir(), "morning-brief.md"))
	if err != nil {
		t.Fatal(err)
	}
	if kept, err := ParseDefinition("morning-brief", data); err != nil || kept.Fingerprint() != d.Fingerprint() {
		t.Errorf("retired file = %v, want the definition as it was", err)
	}
	if err := s.Retire("morning-brief"); err != nil {
		t.Errorf("retire again = %v, want nil (idempotent)", err)
	}
	if _, err := s.Create(d); !errors.Is(err, ErrRetired) {
		t.Errorf("Create of a retired ID = %v, want ErrRetired", err)
	}
	if err := s.Retire("never-was"); !errors.Is(err, ErrNotFound) {
		t.Errorf("retire unknown = %v, want ErrNotFound", err)
	}
	var q *QuarantineError
	if err := s.Retire("../x"); !errors.As(err, &q) || q.Reason != QuarantineEscape {
		t.Errorf("retire ../x = %v, want an escape", err)
	}
}

func TestRetireFinishesAnInterruptedRetire(t *testing.T) {
	s, _, _ := newStore(t)
	src := filepath.Join(s.DefinitionsDir(), "morning-brief.md")
	dst := filepath.Join(s.RetiredDir(), "morning-brief.md")
	must(t, os.Link(src, dst)) // a crash after the link, before the unlink
	must(t, s.Retire("morning-brief"))
	if _, err := os.Lstat(src); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("definition still in definitions/")
	}

	// A different file already retired under the ID is not overwritten.
	s2, _, _ := newStore(t)
	must(t, os.WriteFile(filepath.Join(s2.RetiredDir(), "morning-brief.md"), []byte("older"), 0o600))
	if err := s2.Retire("morning-brief"); !errors.Is(err, ErrExists) {
		t.Errorf("retire over another retired file = %v, want ErrExists", err)
	}
}

func TestList(t *testing.T) {
	s, _, _ := newStore(t)
	other := mustParse(t, "a-first", strings.Replace(validFile, "id: morning-brief", "id: a-first", 1))
	if _, err := s.Create(other); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(s.DefinitionsDir(), ".b-second.md.123.tmp"), []byte("half"), 0o600)) // a write a crash interrupted (privatefile's temp name)
	must(t, os.WriteFile(filepath.Join(s.DefinitionsDir(), "notes.txt"), []byte("x"), 0o600))
	ids, err := s.List()
	if err != nil || strings.Join(ids, " ") != "a-first morning-brief" {
		t.Errorf("List = %v, %v", ids, err)
	}
	if ids, err := NewStore(t.TempDir()).List(); err != nil || len(ids) != 0 {
		t.Errorf("List of an empty store = %v, %v", ids, err)
	}
}

func TestCreateRefusesALinkedDirectory(t *testing.T) {
	s := NewStore(t.TempDir())
	elsewhere := t.TempDir()
	must(t, os.MkdirAll(filepath.Dir(s.DefinitionsDir()), 0o700))
	must(t, os.Symlink(elsewhere, s.DefinitionsDir()))
	var q *QuarantineError
	if _, err := s.Create(mustParse(t, "morning-brief", validFile)); !errors.As(err, &q) || q.Reason != QuarantineEscape {
		t.Errorf("Create through a linked definitions/ = %v, want an escape", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("Create wrote %d files through the link", len(entries))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

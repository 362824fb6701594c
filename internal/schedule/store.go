package schedule

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"hearth/internal/ids"
	"hearth/internal/privatefile"
)

// Errors of the writer. Each is distinct from a quarantine: nothing was read
// as a definition.
var (
	ErrExists   = errors.New("schedules: a different definition with this ID exists")
	ErrRetired  = errors.New("schedules: this ID is retired and never revives")
	ErrNotFound = errors.New("schedules: no such definition")
)

// ErrQuarantined matches every *QuarantineError with errors.Is.
var ErrQuarantined = errors.New("schedules: quarantined")

// QuarantineReason says why a definition file must not be dispatched.
type QuarantineReason string

// The reasons the reader refuses a definition file.
const (
	QuarantineSymlink    QuarantineReason = "symlink"     // the file is a symbolic link
	QuarantineEscape     QuarantineReason = "escape"      // the path leaves the definitions directory, or a directory on it is a link
	QuarantineNotRegular QuarantineReason = "not_regular" // a directory, FIFO, device, or a file swapped while opening
	QuarantineMissing    QuarantineReason = "missing"     // no file
	QuarantineInvalid    QuarantineReason = "invalid"     // not a valid definition (Err is the *ValidationError)
	QuarantineUnapproved QuarantineReason = "unapproved"  // valid, but the ledger holds no approved fingerprint
	QuarantineChanged    QuarantineReason = "changed"     // valid, but not what was approved: edited, replaced or restored
)

// QuarantineError is a definition file the reader refused.
type QuarantineError struct {
	ID     string
	Path   string
	Reason QuarantineReason
	Err    error // the cause, when there is one
}

// Error names the definition, the reason and the path.
func (e *QuarantineError) Error() string {
	s := fmt.Sprintf("schedules: definition %q quarantined (%s): %s", e.ID, e.Reason, e.Path)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap gives the cause, e.g. the *ValidationError of an invalid file.
func (e *QuarantineError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrQuarantined) true for every quarantine.
func (e *QuarantineError) Is(target error) bool { return target == ErrQuarantined }

// Store keeps definition files under DATA/schedules: definitions/<id>.md
// for live ones and retired/<id>.md for cancelled ones, so a scan of
// definitions/ never sees a retired file. It holds no state; the ledger
// serialises writers.
type Store struct{ root string }

// NewStore returns the store of a hearth data directory.
func NewStore(dataDir string) *Store { return &Store{root: filepath.Join(dataDir, "schedules")} }

// DefinitionsDir is DATA/schedules/definitions.
func (s *Store) DefinitionsDir() string { return filepath.Join(s.root, "definitions") }

// RetiredDir is DATA/schedules/retired.
func (s *Store) RetiredDir() string { return filepath.Join(s.root, "retired") }

// path is the file of id inside dir, or an escape quarantine when id is not
// a single path element (checked before the ID alphabet, so "../x" is
// reported as the escape it is).
func (s *Store) path(dir, id string) (string, error) {
	p := filepath.Join(dir, id+".md")
	if id == "" || strings.ContainsAny(id, `/\`) || filepath.Dir(p) != filepath.Clean(dir) {
		return p, &QuarantineError{ID: id, Path: p, Reason: QuarantineEscape}
	}
	if !ids.Valid(id) { // hearth's one ID rule: never "." or "..", so "<id>.md" names a file
		return p, &QuarantineError{ID: id, Path: p, Reason: QuarantineInvalid, Err: invalid("id", "invalid ID", ids.Expected, quote(id))}
	}
	return p, nil
}

// checkDirs refuses a schedules/ or definitions/ that is a link or not a
// directory: through a link every contained path would resolve elsewhere.
// The data directory itself may be a link; that is the operator's choice.
func (s *Store) checkDirs(id string, dirs ...string) error {
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return &QuarantineError{ID: id, Path: d, Reason: QuarantineMissing, Err: err}
		case err != nil:
			return fmt.Errorf("schedules: %w", err)
		case !fi.IsDir():
			return &QuarantineError{ID: id, Path: d, Reason: QuarantineEscape, Err: errors.New("not a directory")}
		}
	}
	return nil
}

// Load reads and parses a definition file, refusing anything but a regular
// file directly inside definitions/. It does not check approval: use
// LoadApproved for anything that may dispatch.
func (s *Store) Load(id string) (Definition, error) {
	p, err := s.path(s.DefinitionsDir(), id)
	if err != nil {
		return Definition{}, err
	}
	if err := s.checkDirs(id, s.root, s.DefinitionsDir()); err != nil {
		return Definition{}, err
	}
	data, err := readRegular(id, p)
	if err != nil {
		return Definition{}, err
	}
	d, err := ParseDefinition(id, data)
	if err != nil {
		return Definition{}, &QuarantineError{ID: id, Path: p, Reason: QuarantineInvalid, Err: err}
	}
	return d, nil
}

// LoadApproved is Load plus the approval check: the file's canonical
// fingerprint must equal the one the ledger approved. Callers dispatch from
// the result only when err is nil.
func (s *Store) LoadApproved(id, fingerprint string) (Definition, error) {
	d, err := s.Load(id)
	if err != nil {
		return Definition{}, err
	}
	p := filepath.Join(s.DefinitionsDir(), id+".md")
	if fingerprint == "" {
		return Definition{}, &QuarantineError{ID: id, Path: p, Reason: QuarantineUnapproved}
	}
	if got := d.Fingerprint(); got != fingerprint {
		return Definition{}, &QuarantineError{ID: id, Path: p, Reason: QuarantineChanged, Err: fmt.Errorf("fingerprint %s, approved %s", got, fingerprint)}
	}
	return d, nil
}

// readRegular reads p only if it is a regular file and not a link. The
// Lstat names the reason; O_NOFOLLOW and the same-file check close the race
// with a swap between the two, and O_NONBLOCK keeps a FIFO from hanging us.
func readRegular(id, p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &QuarantineError{ID: id, Path: p, Reason: QuarantineMissing}
	case err != nil:
		return nil, fmt.Errorf("schedules: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, &QuarantineError{ID: id, Path: p, Reason: QuarantineSymlink}
	case !fi.Mode().IsRegular():
		return nil, &QuarantineError{ID: id, Path: p, Reason: QuarantineNotRegular, Err: fmt.Errorf("mode %s", fi.Mode())}
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, &QuarantineError{ID: id, Path: p, Reason: QuarantineSymlink}
	case errors.Is(err, fs.ErrNotExist):
		return nil, &QuarantineError{ID: id, Path: p, Reason: QuarantineMissing}
	case err != nil:
		return nil, fmt.Errorf("schedules: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || !os.SameFile(fi, st) {
		return nil, &QuarantineError{ID: id, Path: p, Reason: QuarantineNotRegular, Err: errors.New("replaced while opening")}
	}
	// One byte over the bound, so an oversized file fails parsing as too large.
	data, err := io.ReadAll(io.LimitReader(f, MaxDefinitionBytes+1))
	if err != nil {
		return nil, fmt.Errorf("schedules: read %s: %w", p, err)
	}
	return data, nil
}

// List returns the IDs of the *.md files in definitions/, sorted, whatever
// their content: a reconciler loads each to find quarantines and files the
// ledger does not know.
func (s *Store) List() ([]string, error) {
	entries, err := os.ReadDir(s.DefinitionsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("schedules: %w", err)
	}
	ids := []string{}
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Create writes d as definitions/<id>.md, mode 0600, with
// privatefile.CreateExclusive: a crash leaves either no file or the whole
// one, and an existing definition is never replaced, since approved
// definitions are immutable. Writing the same definition again succeeds (a
// journal replay); a different one is ErrExists, a retired ID ErrRetired.
// It returns d's fingerprint.
func (s *Store) Create(d Definition) (string, error) {
	data, err := d.Render()
	if err != nil {
		return "", err
	}
	defs, retired := s.DefinitionsDir(), s.RetiredDir()
	final, err := s.path(defs, d.ID)
	if err != nil {
		return "", err
	}
	if err := s.makeDirs(d.ID, defs, retired); err != nil {
		return "", err
	}
	if _, err := os.Lstat(filepath.Join(retired, d.ID+".md")); err == nil {
		return "", ErrRetired
	}
	fp := d.Fingerprint()
	if err := privatefile.CreateExclusive(final, data); errors.Is(err, fs.ErrExist) {
		existing, lerr := s.Load(d.ID)
		if lerr != nil || existing.Fingerprint() != fp {
			return "", ErrExists
		}
		// A replayed Create may follow a crash before the link was synced.
		if err := syncDir(defs); err != nil {
			return "", err
		}
	} else if err != nil {
		return "", fmt.Errorf("schedules: create %s: %w", d.ID, err)
	}
	return fp, nil
}

// Retire moves definitions/<id>.md to retired/<id>.md (link, then unlink,
// each directory fsynced). Retiring again, or finishing a retire that a
// crash interrupted between the two steps, succeeds. The file is moved as
// it is, even when it would be quarantined: cancelling must always work.
func (s *Store) Retire(id string) error {
	defs, retired := s.DefinitionsDir(), s.RetiredDir()
	src, err := s.path(defs, id)
	if err != nil {
		return err
	}
	dst, _ := s.path(retired, id)
	if err := s.makeDirs(id, defs, retired); err != nil {
		return err
	}
	si, serr := os.Lstat(src)
	di, derr := os.Lstat(dst)
	switch {
	case errors.Is(serr, fs.ErrNotExist) && derr == nil:
		return nil
	case errors.Is(serr, fs.ErrNotExist):
		return ErrNotFound
	case serr != nil:
		return fmt.Errorf("schedules: retire %s: %w", id, serr)
	case si.IsDir():
		return &QuarantineError{ID: id, Path: src, Reason: QuarantineNotRegular, Err: errors.New("a directory")}
	case derr == nil && !os.SameFile(si, di):
		return fmt.Errorf("%w: %s holds another file", ErrExists, dst)
	case derr != nil:
		if err := os.Link(src, dst); err != nil {
			return fmt.Errorf("schedules: retire %s: %w", id, err)
		}
		if err := syncDir(retired); err != nil {
			return err
		}
	}
	if err := os.Remove(src); err != nil {
		return fmt.Errorf("schedules: retire %s: %w", id, err)
	}
	return syncDir(defs)
}

// makeDirs creates the store's directories (0700) and refuses links among them.
func (s *Store) makeDirs(id string, dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("schedules: %w", err)
		}
	}
	return s.checkDirs(id, append([]string{s.root}, dirs...)...)
}

// syncDir makes a link, unlink or rename in dir durable.
func syncDir(dir string) error {
	if err := privatefile.SyncDir(dir); err != nil {
		return fmt.Errorf("schedules: %w", err)
	}
	return nil
}

// CopyTo copies definitions/ and retired/ into dest (which must not exist)
// with the same layout, directories 0700 and files 0600, each file and
// directory fsynced: the schedules half of `hearth backup`. Only regular
// *.md files are copied; a link or anything else is not followed and is
// returned in skipped ("definitions/x.md: symlink"), since a restored link
// would be quarantined anyway. A missing source directory is copied as an
// empty one, so a backup always has the full layout.
func (s *Store) CopyTo(dest string) (copied int, skipped []string, err error) {
	if _, err := os.Lstat(dest); err == nil {
		return 0, nil, fmt.Errorf("schedules: backup: %s already exists; choose a new name", dest)
	}
	if err := os.Mkdir(dest, 0o700); err != nil {
		return 0, nil, fmt.Errorf("schedules: backup: %w", err)
	}
	skipped = []string{}
	for _, sub := range []string{"definitions", "retired"} {
		to := filepath.Join(dest, sub)
		if err := os.Mkdir(to, 0o700); err != nil {
			return copied, skipped, fmt.Errorf("schedules: backup: %w", err)
		}
		from := filepath.Join(s.root, sub)
		if fi, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return copied, skipped, fmt.Errorf("schedules: backup: %w", err)
		} else if !fi.IsDir() {
			skipped = append(skipped, sub+": not a directory")
			continue
		}
		entries, err := os.ReadDir(from)
		if err != nil {
			return copied, skipped, fmt.Errorf("schedules: backup: %w", err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			if !e.Type().IsRegular() {
				skipped = append(skipped, fmt.Sprintf("%s/%s: %s", sub, e.Name(), kindOf(e.Type())))
				continue
			}
			id := strings.TrimSuffix(e.Name(), ".md")
			data, err := readRegular(id, filepath.Join(from, e.Name()))
			var q *QuarantineError
			if errors.As(err, &q) {
				skipped = append(skipped, fmt.Sprintf("%s/%s: %s", sub, e.Name(), q.Reason))
				continue
			} else if err != nil {
				return copied, skipped, err
			}
			if err := privatefile.CreateExclusive(filepath.Join(to, e.Name()), data); err != nil {
				return copied, skipped, fmt.Errorf("schedules: backup: %w", err)
			}
			copied++
		}
		if err := syncDir(to); err != nil {
			return copied, skipped, err
		}
	}
	return copied, skipped, syncDir(dest)
}

func kindOf(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return string(QuarantineSymlink)
	}
	return string(QuarantineNotRegular)
}

// Package privatefile is hearth's one way to write an owner-only (0600)
// file durably: the data goes to a temp file in the same directory, is
// fsynced, and only then takes the file's name, whose directory is fsynced
// too. A crash therefore leaves the old file or the whole new one, never a
// torn one. A crash may leave a temp file (".<name>.*.tmp") behind; it
// never ends in the file's own extension, so readers that list by
// extension do not see it.
package privatefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// beforeName runs once the temp file is written and fsynced, before it
// takes its name; a test sets it to crash the process there.
var beforeName = func(tmp string) {}

// WriteAtomic creates or replaces path with data, mode 0600 whatever the
// mode of a file it replaces.
func WriteAtomic(path string, data []byte) error {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("privatefile: %w", err)
	}
	return SyncDir(filepath.Dir(path))
}

// CreateExclusive creates path with data, mode 0600, only if nothing (not
// even a dangling link) is there; otherwise it returns an error that
// errors.Is fs.ErrExist, and the existing file is untouched. It links the
// temp file to its name because a rename would replace what is there. On a
// file system without hard links (a FAT backup drive) it creates the name
// itself with O_EXCL instead: still exclusive and synced, but a crash there
// may leave a partial file.
func CreateExclusive(path string, data []byte) error {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := link(tmp, path); errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("privatefile: %w", err)
	} else if err != nil {
		os.Remove(tmp)
		return createInPlace(path, data)
	}
	if err := os.Remove(tmp); err != nil {
		return fmt.Errorf("privatefile: %w", err)
	}
	return SyncDir(filepath.Dir(path))
}

// link is os.Link; a test replaces it to stand for a file system without
// hard links.
var link = os.Link

// createInPlace is CreateExclusive where hard links are refused.
func createInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("privatefile: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("privatefile: write %s: %w", path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// SyncDir makes a create, link, unlink or rename in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("privatefile: sync %s: %w", dir, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("privatefile: sync %s: %w", dir, err)
	}
	return nil
}

// writeTemp writes data to a new 0600 temp file beside path, fsynced, and
// returns its name; on failure it leaves nothing behind.
func writeTemp(path string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("privatefile: %w", err)
	}
	// CreateTemp makes 0600 already; Chmod says so where a umask or a
	// future Go could differ.
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("privatefile: write %s: %w", path, err)
	}
	beforeName(f.Name())
	return f.Name(), nil
}

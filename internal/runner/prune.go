package runner

import (
	"os"
	"path/filepath"
	"time"
)

// pruneFailed removes the refused publications kept in failed/ longer
// than the runner's retention: they may hold text derived from the owner's
// messages, so they go after the same horizon as the observations it came
// from. A retention of 0 keeps them all.
func (r *Runner) pruneFailed(now time.Time) {
	if r.failedRetention <= 0 {
		return
	}
	dir := filepath.Join(r.state, "failed")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	removed := 0
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) <= r.failedRetention {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			removed++
		}
	}
	if removed > 0 {
		r.log.Info("pruned refused publications", "files", removed, "olderThan", r.failedRetention)
	}
}

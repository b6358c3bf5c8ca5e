// Package workspace makes the directories a worker keeps its files in
// (spilled results among them) and removes them: its own when it stops,
// and those of processes that died without removing theirs, as Dask's
// worker space does. Each directory holds a lock file its process keeps
// locked while it lives; a lock that can be taken belongs to no one.
//
// Must never import: anything outside the standard library.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lockName is the lock file in each directory; a directory without one
// (being made, or not ours) is never purged.
const lockName = "dusk.lock"

// Space is one process's directory.
type Space struct {
	Dir  string
	lock *os.File
}

// New purges the directories under base whose names start with prefix and
// whose processes are gone, then makes a fresh one and locks it.
func New(base, prefix string) (*Space, error) {
	Purge(base, prefix)
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		return nil, err
	}
	// The lock is taken under another name and then renamed into place, so
	// that a purge running beside never finds it unlocked.
	tmp := filepath.Join(dir, lockName+".new")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err == nil {
		if err = lock(f); err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			err = os.Rename(tmp, filepath.Join(dir, lockName))
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return &Space{Dir: dir, lock: f}, nil
}

// Close removes the directory and everything in it, then lets the lock go.
func (s *Space) Close() error {
	err := os.RemoveAll(s.Dir)
	return errors.Join(err, s.lock.Close())
}

// Purge removes the directories under base whose names start with prefix
// and whose lock files no live process holds, and returns them.
func Purge(base, prefix string) []string {
	entries, err := os.ReadDir(base)
	if err != nil || !locksHeld {
		return nil
	}
	var purged []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if lock(f) == nil && os.RemoveAll(dir) == nil {
			purged = append(purged, dir)
		}
		f.Close()
	}
	return purged
}

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// SchedulerFile is what a scheduler file holds, as Dask's --scheduler-file:
// where the scheduler serves, so that workers and clients on a shared file
// system find it without being told its address.
type SchedulerFile struct {
	Address   string `json:"address"`
	Dashboard string `json:"dashboard,omitempty"`
}

// WriteSchedulerFile writes f to path whole (a reader never sees half of it).
func WriteSchedulerFile(path string, f SchedulerFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dusk-scheduler-*")
	if err != nil {
		return fmt.Errorf("scheduler file %s: %w", path, err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("scheduler file %s: %w", path, err)
	}
	return nil
}

// ReadSchedulerFile reads the scheduler's address from the file at path,
// waiting (with backoff, until ctx ends) for a scheduler not yet started
// to write it, as Dask's workers wait for theirs.
func ReadSchedulerFile(ctx context.Context, path string) (string, error) {
	wait := 100 * time.Millisecond
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			var f SchedulerFile
			if err := json.Unmarshal(b, &f); err != nil || f.Address == "" {
				return "", fmt.Errorf("scheduler file %s: not a scheduler file (%v)", path, err)
			}
			return f.Address, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("scheduler file: %w", err)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("scheduler file %s: no scheduler wrote it: %w", path, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// Package storage finds and opens the files that a path or glob names.
// Today it serves local paths; object-store URLs come through the same calls.
//
// Must never import: scheduler, worker, the collections.
package storage

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// File is one file a pattern matched.
type File struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// ErrNoMatch is returned (wrapped) by List when a pattern matches nothing.
var ErrNoMatch = errors.New("no files match")

// List returns the files that pattern names, sorted by path: a file, every
// file under a directory, or the files a glob (path.Match syntax) matches,
// directories among them expanded likewise.
func List(pattern string) ([]File, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", pattern, err)
	}
	var files []File
	for _, m := range matches {
		err := filepath.WalkDir(m, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != m && isHidden(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if isHidden(d.Name()) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			files = append(files, File{Path: p, Size: info.Size(), ModTime: info.ModTime()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", pattern, err)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w %s", ErrNoMatch, pattern)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// isHidden skips files such as .DS_Store and _SUCCESS markers.
func isHidden(name string) bool {
	return len(name) > 0 && (name[0] == '.' || name[0] == '_')
}

// ReaderAt is an open file to read ranges of.
type ReaderAt interface {
	io.ReaderAt
	io.Closer
}

// Open opens path for reading ranges.
func Open(path string) (ReaderAt, error) {
	return os.Open(path)
}

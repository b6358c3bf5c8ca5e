package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// local is the file system of this machine.
type local struct{}

func (local) list(_ context.Context, root string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && isHidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err == nil && d.Type()&fs.ModeSymlink != 0 {
			// A link is read as what it points to, which gives the size.
			if info, err = os.Stat(p); err == nil && !info.Mode().IsRegular() {
				return nil // a linked directory is not walked into
			}
		}
		if err != nil {
			return err
		}
		files = append(files, File{Path: p, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	sortFiles(files)
	return files, err
}

func (local) stat(_ context.Context, p string) (File, error) {
	info, err := os.Stat(p)
	if err != nil {
		return File{}, err
	}
	return File{Path: p, Size: info.Size(), ModTime: info.ModTime()}, nil
}

type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }

func (local) open(_ context.Context, p string) (ReaderAt, error) {
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		// Listed where the graph was made, missing where it is read.
		return nil, fmt.Errorf("%w (a local path is read on the machine of the worker that reads it: "+
			"the file must be there too, on a shared file system, or be given as a URL such as s3://bucket/key)", err)
	}
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return localFile{f, info.Size()}, nil
}

// create writes to a hidden temporary file beside p; Commit renames it to p
// or, without overwrite, links it there, which fails if p exists.
func (local) create(_ context.Context, p string, overwrite bool) (*Writer, error) {
	if !overwrite {
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%w (pass overwrite to replace it)", ErrExist)
		}
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := createTemp(dir, "."+filepath.Base(p)+".tmp-")
	if err != nil {
		return nil, err
	}
	abort := func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}
	commit := func() error {
		if err := tmp.Close(); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		defer os.Remove(tmp.Name())
		if overwrite {
			return os.Rename(tmp.Name(), p)
		}
		if err := os.Link(tmp.Name(), p); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%w (pass overwrite to replace it)", ErrExist)
			}
			return err
		}
		return nil
	}
	return &Writer{w: tmp, commit: commit, abort: abort}, nil
}

func (local) remove(_ context.Context, p string) error { return os.Remove(p) }

// createTemp creates a new file named prefix and a random suffix in dir,
// readable by others as the umask allows (os.CreateTemp makes it private).
func createTemp(dir, prefix string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("create a temporary file in %s: too many names taken", dir)
}

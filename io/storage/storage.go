// Package storage finds, opens and writes the files that a path, glob or
// URL names: local paths (or file:// URLs) through the operating system, and
// object stores (mem://, s3://, gs://, azblob://) through gocloud.dev/blob.
// The glob decides the datums, the units that partitions and the incremental
// cache are made of (see Datums).
//
// Must never import: scheduler, worker, the collections.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File is one file a pattern matched.
type File struct {
	Path    string    `json:"path"` // a local path, or a URL with its query
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	// MD5 is the content hash an object store reports, hex; empty if none.
	MD5 string `json:"md5,omitempty"`
	// Rel is the path below the part of the pattern before its first glob
	// (the dataset's root), with '/' separators; where hive directories
	// (year=2024/) are looked for.
	Rel string `json:"-"`
}

// Fingerprint identifies the file's content: its size and hash, or its size
// and modification time where the store reports no hash.
func (f File) Fingerprint() string {
	if f.MD5 != "" {
		return fmt.Sprintf("%d:md5:%s", f.Size, f.MD5)
	}
	return fmt.Sprintf("%d:%d", f.Size, f.ModTime.UnixNano())
}

// ErrNoMatch is returned (wrapped) by List and Datums when a pattern matches
// nothing.
var ErrNoMatch = errors.New("no files match")

// ErrExist is returned (wrapped) by Create when the file exists and
// overwriting was not asked for.
var ErrExist = errors.New("already exists")

// Schemes lists the URL schemes storage serves.
var Schemes = []string{"file", "mem", "s3", "gs", "azblob"}

// ReaderAt is an open file to read ranges of.
type ReaderAt interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// backend is one kind of storage: the local file system or a bucket.
type backend interface {
	// list returns every file under prefix (a directory or a key prefix),
	// hidden ones left out, as full paths.
	list(ctx context.Context, prefix string) ([]File, error)
	stat(ctx context.Context, p string) (File, error)
	open(ctx context.Context, p string) (ReaderAt, error)
	create(ctx context.Context, p string, overwrite bool) (*Writer, error)
	remove(ctx context.Context, p string) error
}

// resolve finds the backend of p and the path within it.
// Paths outside AllowOnly's rules are refused here.
func resolve(ctx context.Context, p string) (backend, string, error) {
	if !isURL(p) {
		return local{}, p, checkAllowed(p, true) // a plain path
	}
	if strings.HasPrefix(p, "file://") {
		u, err := url.Parse(p)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", p, err)
		}
		lp := filepath.FromSlash(u.Path)
		return local{}, lp, checkAllowed(lp, true)
	}
	if err := checkAllowed(p, false); err != nil {
		return nil, "", err
	}
	b, err := openBucket(ctx, p)
	if err != nil {
		return nil, "", err
	}
	return b, p, nil
}

// Abs is p with a relative local path made absolute against this
// process's working directory; URLs (file:// included) and absolute paths
// are returned as they are. A client resolves the paths it is given so, as
// its user means them, before tasks carry them to workers, which run in
// working directories of their own, often on other machines.
func Abs(p string) string {
	if p == "" || isURL(p) || filepath.IsAbs(p) {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if strings.HasSuffix(p, string(filepath.Separator)) {
		abs += string(filepath.Separator) // "out/" stays a directory's name
	}
	return abs
}

// List returns the files that pattern names, in path order (numbers in names
// in numeric order: part.2 before part.10): a file, every
// file under a directory, or the files a glob (path.Match syntax per path
// segment) matches, directories among them expanded likewise.
func List(pattern string) ([]File, error) {
	ds, err := Datums(pattern)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, d := range ds {
		files = append(files, d.Files...)
	}
	return files, nil
}

// Datum is what one match of a glob names: a file, or a directory with every
// file under it.
type Datum struct {
	Name  string // the matched path
	Files []File // in path order
}

// Datums returns the datums a pattern names, in path order, as Pachyderm's
// glob patterns do: "data/*" makes each file or directory at the top of data
// one datum (all the files of data/California/ together); "data/*/*" makes
// each file one level down one datum; "data/California/*" takes a subset;
// "data/" or "data" (no glob) is a single datum. Names that begin with '.'
// or '_' (such as _SUCCESS markers) are left out.
func Datums(pattern string) ([]Datum, error) {
	ctx := context.Background()
	b, p, err := resolve(ctx, Abs(pattern))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", pattern, err)
	}
	root, glob := splitGlob(b, p)
	var out []Datum
	switch {
	case glob == "":
		files, err := b.list(ctx, root)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", pattern, err)
		}
		if len(files) > 0 {
			out = []Datum{{Name: root, Files: files}}
		}
	case isLocal(b):
		out, err = localDatums(ctx, root, p)
	default:
		out, err = bucketDatums(ctx, b, root, glob)
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", pattern, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w %s", ErrNoMatch, pattern)
	}
	rootBody, _, _ := strings.Cut(filepath.ToSlash(root), "?")
	for _, d := range out {
		for i := range d.Files {
			body, _, _ := strings.Cut(filepath.ToSlash(d.Files[i].Path), "?")
			d.Files[i].Rel = strings.TrimPrefix(strings.TrimPrefix(body, rootBody), "/")
		}
	}
	return out, nil
}

// splitGlob splits p into the longest leading part without glob characters
// (a directory, a file or a key prefix, with a URL's query kept) and the
// rest, a slash-separated glob.
func splitGlob(b backend, p string) (root, glob string) {
	if isLocal(b) {
		p = filepath.ToSlash(p)
	}
	body, query, _ := strings.Cut(p, "?")
	if query != "" {
		query = "?" + query
	}
	if isLocal(b) {
		body, query = p, ""
	}
	segs := strings.Split(body, "/")
	i := 0
	for i < len(segs) && !strings.ContainsAny(segs[i], "*?[\\") {
		i++
	}
	root, glob = strings.Join(segs[:i], "/"), strings.Join(segs[i:], "/")
	if glob == "" {
		root = strings.TrimSuffix(root, "/")
	}
	if isLocal(b) {
		root = filepath.FromSlash(root)
		if root == "" {
			root = "."
		}
	}
	return root + query, glob
}

func isLocal(b backend) bool {
	_, ok := b.(local)
	return ok
}

// localDatums makes a datum of each match of a glob on the file system.
func localDatums(ctx context.Context, root, pattern string) ([]Datum, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(matches, func(a, b string) int { return comparePaths(filepath.ToSlash(a), filepath.ToSlash(b)) })
	var out []Datum
	for _, m := range matches {
		if rel, err := filepath.Rel(root, m); err != nil || hiddenIn(filepath.ToSlash(rel)) {
			continue
		}
		if err := checkAllowed(m, true); err != nil {
			return nil, err // a link among the matches leads out
		}
		files, err := local{}.list(ctx, m)
		if err != nil {
			return nil, err
		}
		if len(files) > 0 {
			out = append(out, Datum{Name: m, Files: files})
		}
	}
	return out, nil
}

// bucketDatums makes datums of the objects under root that glob matches:
// each object belongs to the datum named by its first len(glob's segments)
// segments after root.
func bucketDatums(ctx context.Context, b backend, root, glob string) ([]Datum, error) {
	globSegs := strings.Split(glob, "/")
	for _, g := range globSegs {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("glob %q: %w", glob, err)
		}
	}
	files, err := b.list(ctx, root)
	if err != nil {
		return nil, err
	}
	rootBody, query, _ := strings.Cut(root, "?")
	if query != "" {
		query = "?" + query
	}
	var out []Datum
	for _, f := range files {
		body, _, _ := strings.Cut(f.Path, "?")
		segs := strings.Split(strings.TrimPrefix(strings.TrimPrefix(body, rootBody), "/"), "/")
		if len(segs) < len(globSegs) {
			continue
		}
		match := true
		for i, g := range globSegs {
			if ok, _ := path.Match(g, segs[i]); !ok || isHidden(segs[i]) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		name := strings.TrimSuffix(rootBody, "/") + "/" + strings.Join(segs[:len(globSegs)], "/") + query
		if n := len(out); n > 0 && out[n-1].Name == name {
			out[n-1].Files = append(out[n-1].Files, f)
		} else {
			out = append(out, Datum{Name: name, Files: []File{f}})
		}
	}
	return out, nil
}

// Stat describes one file.
func Stat(p string) (File, error) {
	ctx := context.Background()
	b, p, err := resolve(ctx, p)
	if err != nil {
		return File{}, err
	}
	return b.stat(ctx, p)
}

// IsNotExist reports whether err says a file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, os.ErrNotExist) }

// Open opens a file for reading ranges.
func Open(p string) (ReaderAt, error) {
	ctx := context.Background()
	b, p, err := resolve(ctx, p)
	if err != nil {
		return nil, err
	}
	return b.open(ctx, p)
}

// Remove deletes a file.
func Remove(p string) error {
	ctx := context.Background()
	b, p, err := resolve(ctx, p)
	if err != nil {
		return err
	}
	return b.remove(ctx, p)
}

// Writer writes a file that appears, whole, only when Commit succeeds: a
// local file is written under a hidden temporary name and renamed, an object
// is uploaded and completed. Abort (or a failed Commit) leaves nothing.
type Writer struct {
	w      io.Writer
	commit func() error
	abort  func()
	done   bool
}

func (w *Writer) Write(p []byte) (int, error) { return w.w.Write(p) }

// Commit makes the file visible under its name.
func (w *Writer) Commit() error {
	if w.done {
		return nil
	}
	w.done = true
	return w.commit()
}

// Abort discards what was written; after Commit it does nothing.
func (w *Writer) Abort() {
	if !w.done {
		w.done = true
		w.abort()
	}
}

// Create starts writing the file p. Unless overwrite is set, a file already
// there is an error wrapping ErrExist, and is left as it was.
func Create(p string, overwrite bool) (*Writer, error) {
	ctx := context.Background()
	b, q, err := resolve(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", p, err)
	}
	w, err := b.create(ctx, q, overwrite)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", p, err)
	}
	return w, nil
}

// WriteFile writes p with write, atomically: on any error nothing is left
// under p (and what was there before remains).
func WriteFile(p string, overwrite bool, write func(io.Writer) error) error {
	w, err := Create(p, overwrite)
	if err != nil {
		return err
	}
	if err := write(w); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := w.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// Join joins a directory (path or URL, with or without a query) and a name.
func Join(dir, name string) string {
	if scheme, _, ok := strings.Cut(dir, "://"); ok && scheme != "file" && !strings.ContainsAny(scheme, "/\\.") {
		body, query, _ := strings.Cut(dir, "?")
		if !strings.HasSuffix(body, "/") {
			body += "/"
		}
		if query != "" {
			query = "?" + query
		}
		return body + name + query
	}
	if strings.HasPrefix(dir, "file://") {
		return strings.TrimSuffix(dir, "/") + "/" + name
	}
	return filepath.Join(dir, name)
}

// isHidden skips files such as .DS_Store and _SUCCESS markers, and the
// temporary files of writes in progress.
func isHidden(name string) bool {
	return len(name) > 0 && (name[0] == '.' || name[0] == '_')
}

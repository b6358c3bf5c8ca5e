// Package files is what every file format of io/ implements, once: say how
// to read a set of files (their schema and the units each can be read in),
// read a slice of one file with projected columns and, where the format
// tests them as it decodes, filters expressed here, and write a record as
// a file. Formats register themselves by name; the collections' read and
// write steps look them up and hold no glue of their own, so that adding a
// format is one package that implements Format and registers it.
//
// Must never import: anything of Dusk but io/storage.
package files

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/storage"
)

// Format is one file format.
type Format interface {
	// Name names the format: "csv", "parquet"; its files' extension.
	Name() string
	// Describe says how to read files, with the reader's options (the
	// format's own, as JSON; nil: the defaults).
	Describe(files []storage.File, opts json.RawMessage) (*Layout, error)
	// Filters reports whether Read tests filters as it decodes.
	Filters() bool
	// Read reads the columns cols (nil: all; those the file lacks are
	// left out) of a slice, with the read options Describe gave, keeping
	// only the rows every filter passes (given only where Filters is
	// true). The caller releases the record.
	Read(s Slice, cols []string, where []Filter, opts json.RawMessage) (arrow.Record, error)
	// Write writes rec to w as a file of the format with the writer's
	// options (the format's own, as JSON); continued: rec continues a file
	// that an earlier record began (a text format writes no header).
	Write(w io.Writer, rec arrow.Record, opts json.RawMessage, continued bool) error
}

// Layout is what Describe finds.
type Layout struct {
	// Files describes each file, for a format whose files describe
	// themselves (Parquet, Avro); nil for a text format, which reads every
	// file by Schema in blocks of whole lines.
	Files []FileLayout
	// Schema is a text format's schema (given or inferred).
	Schema *arrow.Schema
	// ReadOpts are what Read needs besides a slice (a text format's
	// parsed schema).
	ReadOpts json.RawMessage
}

// FileLayout is one self-describing file.
type FileLayout struct {
	Schema *arrow.Schema // Dusk types; every field nullable
	// Units are the parts the file can be read in (Parquet's row groups);
	// nil: it is read whole.
	Units []Unit
}

// Unit is a part of a file read on its own.
type Unit struct {
	Rows  int64
	Bytes int64         // uncompressed size of its column data
	Stats []ColumnStats // in schema order; nil: none
}

// ColumnStats are a column chunk's statistics as the file records them.
// Nulls is 0 where the file records no null count.
type ColumnStats struct {
	Nulls     int64
	HasMinMax bool // false when the file has no statistics for it
	// Paged: the chunk has a page index (bounds of each page), by which a
	// filter on the column skips pages (see Filter.Stats).
	Paged bool
	// Compressed is the chunk's bytes in the file: what a scan of it reads.
	Compressed int64
	// The fields of the column's type hold the bounds: Int for int64
	// columns, Float for float64, String for strings, Bool for bool.
	MinInt, MaxInt       int64
	MinFloat, MaxFloat   float64
	MinString, MaxString string
	MinBool, MaxBool     bool
}

// A Filter keeps the rows whose value in Column passes: Pass returns, for
// an array of the column's values, 1 for each value whose rows are kept
// and 0 for the others, len(values) in all.
type Filter struct {
	Column string
	Pass   func(values arrow.Array) ([]uint8, error)
	// Stats, when set, reports whether some value of a page whose
	// statistics are st may pass: a reader may skip the rows of the pages
	// it rules out.
	Stats func(st ColumnStats) bool
	// Sift, when set, tests the values of a plain page or of a column
	// built whole in place of Pass: it clears keep[i] for the rows it
	// fails among those keep still holds, so that a filter that costs by
	// the value (a join's filter of its keys) asks only of the rows the
	// filters before it passed. Pass still tests a dictionary's values.
	Sift func(values arrow.Array, keep []uint8) error
}

// Slice is the part of one file a read task reads: all of it, some of its
// units, or (a text format) a block of its lines. Stamp, the file's
// fingerprint, makes the task's arguments (and so the incremental cache's
// key) change with the file.
type Slice struct {
	Path  string `json:"path"`
	Stamp string `json:"stamp"`
	Units []int  `json:"groups,omitempty"`
	// Start, End and Size make a line-based file's slice a block: the lines
	// that start in [Start, End) of a file of Size bytes.
	Start int64 `json:"start,omitempty"`
	End   int64 `json:"end,omitempty"`
	Size  int64 `json:"size,omitempty"`
	// Cols are the file's own columns when it lacks some of the source's
	// (a union of files); nil: it has them all.
	Cols []string `json:"cols,omitempty"`
}

// Block is a text slice's block of lines.
func (s Slice) Block() storage.Block {
	return storage.Block{Path: s.Path, Start: s.Start, End: s.End, Size: s.Size, Stamp: s.Stamp}
}

// Own keeps of cols those the slice's file has (all of them where Cols is
// nil).
func (s Slice) Own(cols []string) []string {
	if s.Cols == nil {
		return cols
	}
	return slices.DeleteFunc(slices.Clone(cols), func(c string) bool { return !slices.Contains(s.Cols, c) })
}

// CheckStamp fails a read of a file that changed after its slices were
// planned: its units may no longer be those planned.
func (s Slice) CheckStamp() error {
	if st, err := storage.Stat(s.Path); err == nil && st.Fingerprint() != s.Stamp {
		return fmt.Errorf("read %s: the file changed since the frame was made (%s, was %s): make the frame again", s.Path, st.Fingerprint(), s.Stamp)
	}
	return nil
}

// Options decodes a format's options, given as JSON (none, or null: the
// zero value), naming what they are for in the error.
func Options[T any](what string, raw json.RawMessage) (T, error) {
	var o T
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &o); err != nil {
			return o, fmt.Errorf("%s: options: %w", what, err)
		}
	}
	return o, nil
}

// EachFile describes each file with describe, eight at a time (on an
// object store every footer or header is a round trip), and returns the
// first error in file order.
func EachFile(files []storage.File, describe func(storage.File) (FileLayout, error)) ([]FileLayout, error) {
	out := make([]FileLayout, len(files))
	errs := make([]error, len(files))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = describe(f)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

var (
	mu      sync.RWMutex
	formats = map[string]Format{}
)

// Register adds a format under its name; a second format of one name is
// a programming error.
func Register(f Format) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := formats[f.Name()]; dup {
		panic(fmt.Sprintf("files: two formats named %q", f.Name()))
	}
	formats[f.Name()] = f
}

// Named is the format registered as name.
func Named(name string) (Format, error) {
	mu.RLock()
	defer mu.RUnlock()
	if f, ok := formats[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("no file format %q (there are %v)", name, names())
}

// Names lists the registered formats, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return names()
}

func names() []string {
	out := make([]string, 0, len(formats))
	for n := range formats {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

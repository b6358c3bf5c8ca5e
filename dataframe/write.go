package dataframe

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/io/csv"
	"github.com/duskdata/dusk/io/storage"
)

// write runs a write task (op, with the arguments argsOf gives each
// partition) on every partition of f and returns the files written, in
// partition order. Each task returns the paths it wrote.
func (f *Frame) write(ctx context.Context, what, op string, argsOf func(i int) any) ([]string, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	run, release, err := plan.Adapt(ctx, ex, plan.Optimize(f.plan))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	l := plan.NewLowering()
	parts := l.Keys(run)
	keys := make([]graph.Key, len(parts))
	for i, in := range parts {
		args := ops.MustJSON(argsOf(i))
		keys[i] = graph.Part(graph.Name("write", op, args, run.Name()), i)
		l.G.Add(&graph.Task{Key: keys[i], Op: op, Args: args, Inputs: []graph.Key{in}})
	}
	values, err := ex.Compute(ctx, l.G, keys)
	runtime.KeepAlive(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var paths []string
	for _, v := range values {
		paths = append(paths, v.([]string)...)
	}
	return paths, nil
}

// replaced finishes a write with Overwrite into the directory dir: the
// files of an earlier write there (part.N.ext, also in hive directories)
// that this one did not replace are removed, so that a later read does not
// take them for part of the new data.
func replaced(what, dir, ext string, written []string, err error) ([]string, error) {
	if err != nil {
		return written, err
	}
	files, lerr := storage.List(dir)
	if lerr != nil {
		return written, nil // nothing there besides what was written
	}
	kept := make(map[string]bool, len(written))
	for _, p := range written {
		kept[p] = true
	}
	for _, f := range files {
		body, _, _ := strings.Cut(f.Path, "?")
		name := body[strings.LastIndexAny(body, "/\\")+1:]
		if !kept[f.Path] && stalePart.MatchString(name) && strings.HasSuffix(name, "."+ext) {
			if err := storage.Remove(f.Path); err != nil {
				return written, fmt.Errorf("%s: remove %s, left by an earlier write: %w", what, f.Path, err)
			}
		}
	}
	return written, nil
}

var stalePart = regexp.MustCompile(`^part\.[0-9]+\.`)

// CSVWriteOptions say how ToCSV writes.
type CSVWriteOptions struct {
	// Delimiter separates fields. Default ','.
	Delimiter byte
	// NoHeader leaves out the header line.
	NoHeader bool
	// Null is written for null values. Default: an empty field.
	Null string
	// SingleFile writes every partition, in order, into the one file path.
	SingleFile bool
	// Overwrite replaces files already there, and removes the part files
	// of an earlier write to the directory path that this one does not
	// replace; without it a file in the way fails the write and is left as
	// it was.
	Overwrite bool
}

// ToCSV writes the frame as CSV: one file per partition, named by path with
// its '*' replaced by the partition's number ("out/export-*.csv"), or
// part.N.csv in the directory path; or, with SingleFile, one file at path.
// A name ending in .gz or .zst is compressed. Every file is written
// atomically. It returns the files written.
func (f *Frame) ToCSV(ctx context.Context, path string, opts ...CSVWriteOptions) ([]string, error) {
	var o CSVWriteOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	copts := csv.WriteOptions{Delimiter: o.Delimiter, NoHeader: o.NoHeader, Null: o.Null}
	return f.writeText(ctx, "ToCSV", path, "csv", copts, o.SingleFile, o.Overwrite)
}

// writeText writes CSV or JSON lines, a file per partition or, with
// single, parts that a last task joins into one file.
func (f *Frame) writeText(ctx context.Context, what, path, format string, opts any, single, overwrite bool) ([]string, error) {
	path = storage.Abs(path) // as the caller means it, not the worker that writes
	if single {
		if _, err := storage.Stat(path); err == nil && !overwrite {
			return nil, fmt.Errorf("%s: write %s: %w (pass Overwrite to replace it)", what, path, storage.ErrExist)
		}
	}
	paths, err := f.write(ctx, what, ops.OpWriteText, func(i int) any {
		return ops.WriteTextArgs{Path: path, Part: i, Format: format, Opts: ops.MustJSON(opts), Single: single, Over: overwrite}
	})
	if err != nil || !single {
		if overwrite && !strings.Contains(path, "*") {
			return replaced(what, path, format, paths, err)
		}
		return paths, err
	}
	defer func() {
		for _, p := range paths {
			storage.Remove(p)
		}
	}()
	err = storage.WriteFile(path, overwrite, func(w io.Writer) error {
		for _, p := range paths {
			r, err := storage.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(w, io.NewSectionReader(r, 0, r.Size()))
			r.Close()
			if err != nil {
				return fmt.Errorf("copy %s: %w", p, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return []string{path}, nil
}

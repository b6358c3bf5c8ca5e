package dataframe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/codec"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/io/csv"
	"github.com/duskdata/dusk/io/files"
	"github.com/duskdata/dusk/io/storage"
)

const opWriteText = "df-write-text"

func init() {
	codec.Register(reflect.TypeFor[[]string](), codec.JSON[[]string]())
	registry.RegisterEffect(opWriteText, writeTextOp)
}

type writer = io.Writer

// write runs a write task (op, with the arguments argsOf gives each
// partition) on every partition of f and returns the files written, in
// partition order. Each task returns the paths it wrote.
func (f *Frame) write(ctx context.Context, what, op string, argsOf func(i int) any) ([]string, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	run, release, err := adapt(ctx, ex, optimize(f.plan))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	l := newLowering()
	parts := l.keys(run)
	keys := make([]graph.Key, len(parts))
	for i, in := range parts {
		args := mustJSON(argsOf(i))
		keys[i] = graph.Part(graph.Name("write", op, args, run.name()), i)
		l.g.Add(&graph.Task{Key: keys[i], Op: op, Args: args, Inputs: []graph.Key{in}})
	}
	values, err := ex.Compute(ctx, l.g, keys)
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

// writeSplit writes rec to dir/name with write, atomically; with by, the
// rows of each combination of the by columns' values go to their hive
// directory (dir/year=2024/name), without those columns. It returns the
// paths written.
func writeSplit(rec arrow.Record, dir, name string, by []string, overwrite bool, write func(writer, arrow.Record) error) ([]string, error) {
	if len(by) == 0 {
		p := storage.Join(dir, name)
		return []string{p}, storage.WriteFile(p, overwrite, func(w io.Writer) error { return write(w, rec) })
	}
	keyCols := make([]arrow.Array, len(by))
	var keep []int
	for i, c := range by {
		j := rec.Schema().FieldIndices(c)
		if len(j) == 0 {
			return nil, fmt.Errorf("no column %q to partition by", c)
		}
		keyCols[i] = rec.Column(j[0])
	}
	for i, f := range rec.Schema().Fields() {
		if !slices.Contains(by, f.Name) {
			keep = append(keep, i)
		}
	}
	// Rows group by their keys; those with a null key (GroupRows leaves
	// them out) group by their directory names, null as the default one.
	ids, firsts := kernel.GroupRows(keyCols, nil)
	rows := make([][]int32, len(firsts))
	dirs := make([]string, len(firsts))
	nullGroup := map[string]int{}
	for r, g := range ids {
		if g < 0 {
			d := hiveDirOf(by, keyCols, r)
			j, ok := nullGroup[d]
			if !ok {
				j = len(rows)
				nullGroup[d] = j
				rows, dirs = append(rows, nil), append(dirs, d)
			}
			rows[j] = append(rows[j], int32(r))
			continue
		}
		if rows[g] == nil {
			dirs[g] = hiveDirOf(by, keyCols, r)
		}
		rows[g] = append(rows[g], int32(r))
	}
	var paths []string
	for g, idx := range rows {
		taken := kernel.TakeRecord(rec, idx)
		cols := make([]arrow.Array, len(keep))
		fields := make([]arrow.Field, len(keep))
		for i, j := range keep {
			cols[i], fields[i] = taken.Column(j), taken.Schema().Field(j)
		}
		part := array.NewRecord(arrow.NewSchema(fields, nil), cols, taken.NumRows())
		taken.Release()
		p := storage.Join(dir, dirs[g]+name)
		err := storage.WriteFile(p, overwrite, func(w io.Writer) error { return write(w, part) })
		part.Release()
		if err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// hiveDirOf names the hive directories of row r: "k1=v1/k2=v2/".
func hiveDirOf(by []string, keys []arrow.Array, r int) string {
	var b strings.Builder
	for i, c := range by {
		b.WriteString(c + "=" + hiveValue(keys[i], r) + "/")
	}
	return b.String()
}

// hiveValue is row r of c as a directory value.
func hiveValue(c arrow.Array, r int) string {
	if c.IsNull(r) {
		return hiveNull
	}
	switch a := c.(type) {
	case *array.Int64:
		return strconv.FormatInt(a.Value(r), 10)
	case *array.Float64:
		return escapeHive(strconv.FormatFloat(a.Value(r), 'g', -1, 64))
	case *array.Boolean:
		return strconv.FormatBool(a.Value(r))
	}
	if kernel.IsString(c.DataType()) {
		return escapeHive(kernel.StringsOf(c).Value(r))
	}
	text, err := kernel.TextOf(c)
	if err != nil {
		return escapeHive(c.ValueStr(r))
	}
	return escapeHive(string(text(nil, r)))
}

// partPath names partition i's file: path with its '*' replaced by i, or
// part.i.ext in the directory path.
func partPath(path string, i int, ext string) (dir, name string) {
	body, query, _ := strings.Cut(path, "?")
	if query != "" {
		query = "?" + query
	}
	if strings.Contains(body, "*") {
		j := strings.LastIndexAny(body, "/\\")
		return body[:j+1] + query, strings.Replace(body[j+1:], "*", strconv.Itoa(i), 1)
	}
	return path, fmt.Sprintf("part.%d.%s", i, ext)
}

// encodeFile writes rec with encode to w, compressed as name's extension
// says.
func encodeFile(w io.Writer, name string, encode func(io.Writer) error) error {
	z := storage.Compress(w, name)
	if err := encode(z); err != nil {
		return err
	}
	return z.Close()
}

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

type writeTextArgs struct {
	Path   string          `json:"path"`
	Part   int             `json:"part"`
	Format string          `json:"format"` // csv or json
	Opts   json.RawMessage `json:"opts,omitempty"`
	Single bool            `json:"single,omitempty"`
	Over   bool            `json:"over,omitempty"`
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
	paths, err := f.write(ctx, what, opWriteText, func(i int) any {
		return writeTextArgs{Path: path, Part: i, Format: format, Opts: mustJSON(opts), Single: single, Over: overwrite}
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

func writeTextOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a writeTextArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", opWriteText, err)
	}
	format, err := files.Named(a.Format)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opWriteText, err)
	}
	rec := inputs[0].(arrow.Record)
	dir, name := partPath(a.Path, a.Part, a.Format)
	over := a.Over
	if a.Single {
		// A hidden part beside the file, compressed as the file is: gzip
		// members and zstd frames may follow one another.
		dir, name = singlePart(a.Path, a.Part)
		over = true
	}
	continued := a.Single && a.Part > 0 // no second header
	encode := func(w io.Writer, r arrow.Record) error {
		return encodeFile(w, name, func(z io.Writer) error { return format.Write(z, r, a.Opts, continued) })
	}
	return writeSplit(rec, dir, name, nil, over, encode)
}

// singlePart names part i of the single file path: hidden, in its
// directory, with its extensions.
func singlePart(path string, i int) (dir, name string) {
	body, query, _ := strings.Cut(path, "?")
	j := strings.LastIndexAny(body, "/\\")
	base := body[j+1:]
	ext := ""
	if k := strings.IndexByte(base, '.'); k >= 0 {
		ext = base[k:]
	}
	if query != "" {
		query = "?" + query
	}
	return body[:j+1] + query, fmt.Sprintf(".%s.part-%d%s", base, i, ext)
}

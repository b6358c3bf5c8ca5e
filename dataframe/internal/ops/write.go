package ops

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/codec"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/io/files"
	"github.com/duskdata/dusk/io/storage"
)

const OpWriteText = "df-write-text"

func init() {
	codec.Register(reflect.TypeFor[[]string](), codec.JSON[[]string]())
	registry.RegisterEffect(OpWriteText, writeTextOp)
}

type writer = io.Writer

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
		return HiveNull
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

type WriteTextArgs struct {
	Path   string          `json:"path"`
	Part   int             `json:"part"`
	Format string          `json:"format"` // csv or json
	Opts   json.RawMessage `json:"opts,omitempty"`
	Single bool            `json:"single,omitempty"`
	Over   bool            `json:"over,omitempty"`
}

func writeTextOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a WriteTextArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", OpWriteText, err)
	}
	format, err := files.Named(a.Format)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpWriteText, err)
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

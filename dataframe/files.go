package dataframe

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/files"
	"github.com/duskdata/dusk/io/storage"
)

// DefaultPartitionSize is the size, in bytes of decoded data, up to which
// readers put the pieces of one datum (files, row groups) in one partition.
const DefaultPartitionSize = 128 << 20

// piece is a unit a reader can read on its own, with what a partition's
// reader needs to know of it.
type piece struct {
	datum  int    // pieces of different datums never share a partition
	rel    string // the file's path below the dataset's root
	hive   string
	slice  files.Slice
	bytes  int64
	ranges map[string]expr.Range // statistics, for skipping; nil: none
}

// mayMatch reports whether some row of p may satisfy pred, by its
// statistics (expr.MayMatch).
func (p piece) mayMatch(pred *expr.Node) bool {
	return expr.MayMatch(pred, func(col string) (expr.Range, bool) { r, ok := p.ranges[col]; return r, ok })
}

// filePart is a partition of a file source: pieces of one datum.
type filePart struct {
	pieces []piece
}

// pack puts consecutive pieces of one datum and hive directory in a
// partition until it holds target bytes.
func pack(pieces []piece, target int64) []filePart {
	var parts []filePart
	var size int64
	for i, p := range pieces {
		n := len(parts)
		if n == 0 || p.datum != pieces[i-1].datum || p.hive != pieces[i-1].hive || size+p.bytes > target {
			parts = append(parts, filePart{})
			size = 0
			n++
		}
		parts[n-1].pieces = append(parts[n-1].pieces, p)
		size += p.bytes
	}
	return parts
}

// schemaSet gathers the schemas of files for one source: they must agree,
// or, with union, their columns are merged.
type schemaSet struct {
	paths   []string
	schemas []*arrow.Schema
}

func (s *schemaSet) add(path string, sc *arrow.Schema) {
	s.paths = append(s.paths, path)
	s.schemas = append(s.schemas, kernel.PlainSchema(sc))
}

// resolve returns the source's schema: the files' common one, or with union
// every column any file has, in order of appearance. Files that disagree
// without union are listed side by side.
func (s *schemaSet) resolve(union bool) (*arrow.Schema, error) {
	first := s.schemas[0]
	same := true
	for _, sc := range s.schemas[1:] {
		same = same && sc.Equal(first)
	}
	if same {
		return first, nil
	}
	if !union {
		var b strings.Builder
		b.WriteString("the files' columns differ (pass Union to read every column, with nulls where a file lacks one):")
		w := 0
		for _, p := range s.paths {
			w = max(w, len(p))
		}
		seen := map[string]bool{}
		for i, sc := range s.schemas {
			desc := describeSchema(sc)
			if seen[desc] && i > 0 {
				continue
			}
			seen[desc] = true
			fmt.Fprintf(&b, "\n  %-*s  %s", w, s.paths[i], desc)
		}
		return nil, fmt.Errorf("%s", b.String())
	}
	var fields []arrow.Field
	where := map[string]int{}
	for i, sc := range s.schemas {
		for _, f := range sc.Fields() {
			j, ok := where[f.Name]
			if !ok {
				where[f.Name] = len(fields)
				fields = append(fields, f)
				continue
			}
			if !kernel.SameType(fields[j].Type, f.Type) {
				return nil, fmt.Errorf("column %s is %s in %s but %s in %s: a union needs one type",
					f.Name, kernel.TypeName(fields[j].Type), s.firstWith(f.Name), kernel.TypeName(f.Type), s.paths[i])
			}
		}
	}
	return arrow.NewSchema(fields, nil), nil
}

func (s *schemaSet) firstWith(col string) string {
	for i, sc := range s.schemas {
		if sc.HasField(col) {
			return s.paths[i]
		}
	}
	return ""
}

func describeSchema(s *arrow.Schema) string {
	parts := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		parts[i] = f.Name + " " + kernel.TypeName(f.Type)
	}
	return strings.Join(parts, ", ")
}

// fileArgs are the arguments of a file source's read task.
type fileArgs struct {
	Slices []files.Slice   `json:"slices"`
	Schema []colSpec       `json:"schema"` // the source's columns, hive ones last
	Hive   []hiveColumn    `json:"hive,omitempty"`
	Values []expr.Literal  `json:"values,omitempty"` // this partition's hive values
	Opts   json.RawMessage `json:"opts,omitempty"`
}

// fileSource makes a source of parts; pieces keep their statistics so that
// a pushed-down filter can skip them.
func fileSource(prefix, op string, parts []filePart, schema *arrow.Schema, hive []hiveColumn, opts any, sz size) node {
	var optRaw json.RawMessage
	if opts != nil {
		optRaw = mustJSON(opts)
	}
	spec := specOf(schema)
	argsOf := func(pieces []piece) []byte {
		a := fileArgs{Schema: spec, Hive: hive, Opts: optRaw}
		for _, p := range pieces {
			a.Slices = append(a.Slices, p.slice)
		}
		a.Slices = mergeSlices(a.Slices)
		if len(hive) > 0 {
			a.Values = hiveLiterals(hive, pieces[0].rel)
		}
		return mustJSON(a)
	}
	statsOf := func(pieces []piece) map[string]expr.Range {
		st := pieces[0].ranges
		for _, p := range pieces[1:] {
			st = unionRanges(st, p.ranges)
		}
		return st
	}
	args := make([][]byte, len(parts))
	stats := make([]map[string]expr.Range, len(parts))
	for i, p := range parts {
		args[i], stats[i] = argsOf(p.pieces), statsOf(p.pieces)
	}
	src := newSource(prefix, op, args, schema, "", sz)
	src.stats, src.allStats = stats, stats
	src.prune = func(pred *expr.Node) ([][]byte, []map[string]expr.Range) {
		var out [][]byte
		var outStats []map[string]expr.Range
		for _, part := range parts {
			var kept []piece
			for _, p := range part.pieces {
				if p.mayMatch(pred) {
					kept = append(kept, p)
				}
			}
			if len(kept) > 0 {
				out = append(out, argsOf(kept))
				outStats = append(outStats, statsOf(kept))
			}
		}
		return out, outStats
	}
	src.scanned = func(pred *expr.Node, span *keySpan) int64 {
		var n int64
		for _, part := range parts {
			for _, p := range part.pieces {
				if pred != nil && !p.mayMatch(pred) {
					continue
				}
				n += span.share(p)
			}
		}
		return n
	}
	return src
}

// readFiles reads a file source's partition: each slice with read (given
// the files' columns to read; nil: all, as no projection was pushed down), conformed to the source's columns
// (nulls for those a file lacks, the hive columns' values), concatenated.
func readFiles(name string, raw []byte, f files.Format, extra []columnTest) (arrow.Record, error) {
	return readWith(name, raw, f.Filters(), extra, func(src []byte, cols []string, where []columnTest) (arrow.Record, error) {
		var a fileArgs
		if err := json.Unmarshal(src, &a); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", name, err)
		}
		full := schemaOf(a.Schema)
		schema := full
		if cols != nil { // the source's own order
			var kept []arrow.Field
			for _, f := range schema.Fields() {
				if slices.Contains(cols, f.Name) {
					kept = append(kept, f)
				}
			}
			schema = arrow.NewSchema(kept, nil)
		}
		hive := map[string]expr.Literal{}
		for i, h := range a.Hive {
			hive[h.Name] = a.Values[i]
		}
		var fileCols []string // nil: every column of the files
		if cols != nil {
			fileCols = []string{}
			for _, f := range schema.Fields() {
				if _, ok := hive[f.Name]; !ok {
					fileCols = append(fileCols, f.Name)
				}
			}
		}
		recs := make([]arrow.Record, 0, len(a.Slices))
		defer func() {
			for _, r := range recs {
				r.Release()
			}
		}()
		for _, s := range a.Slices {
			var rec arrow.Record
			var err error
			var filters []files.Filter
			if where != nil {
				if filters, err = sliceFilters(s, where, full, hive); err == nil && filters == nil {
					continue // no row of the slice passes
				}
			}
			if err == nil {
				rec, err = f.Read(s, fileCols, filters, a.Opts)
			}
			if err != nil {
				return nil, err
			}
			conformed, err := conform(rec, schema, hive)
			rec.Release()
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", s.Path, err)
			}
			recs = append(recs, conformed)
		}
		if len(recs) == 1 {
			recs[0].Retain()
			return recs[0], nil
		}
		return kernel.ConcatRecordsDict(schema, recs)
	})
}

// sliceFilters are the reader's filters of a slice for the tests, on the
// columns that full types: a test of a column the file lacks (null
// there) or of a hive column is decided here, once for the slice. Nil: no
// row passes; an empty list: every row does.
func sliceFilters(s files.Slice, tests []columnTest, full *arrow.Schema, hive map[string]expr.Literal) ([]files.Filter, error) {
	filters := []files.Filter{}
	for _, t := range tests {
		want := full.Field(full.FieldIndices(t.col)[0]).Type
		l, isHive := hive[t.col]
		if !isHive && len(s.Own([]string{t.col})) == 1 {
			f := files.Filter{Column: t.col, Pass: func(v arrow.Array) ([]uint8, error) { return t.passes(v, want) }}
			if t.pred != nil {
				f.Stats = func(st files.ColumnStats) bool {
					return expr.MayMatch(t.pred, func(string) (expr.Range, bool) { return statsRange(want, st), true })
				}
			}
			if t.sift != nil {
				f.Sift = func(v arrow.Array, keep []uint8) error { return t.sifts(v, want, keep) }
			}
			filters = append(filters, f)
			continue
		}
		if !isHive {
			l = expr.Literal{Kind: "null"}
		}
		c := constColumn(want, l, 1)
		pass, err := t.passes(c, c.DataType())
		c.Release()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", s.Path, err)
		}
		if pass[0] == 0 {
			return nil, nil
		}
	}
	return filters, nil
}

// conform returns rec with schema's columns: its own, nulls for those it
// lacks, and the constant values of hive columns.
func conform(rec arrow.Record, schema *arrow.Schema, hive map[string]expr.Literal) (arrow.Record, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, schema.NumFields())
	fields := make([]arrow.Field, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range schema.Fields() {
		fields[i] = f
		if l, ok := hive[f.Name]; ok {
			cols[i] = constColumn(f.Type, l, n)
			fields[i].Type = cols[i].DataType()
			continue
		}
		j := rec.Schema().FieldIndices(f.Name)
		if len(j) == 0 {
			cols[i] = constColumn(f.Type, expr.Literal{Kind: "null"}, n)
			fields[i].Type = cols[i].DataType()
			continue
		}
		c := rec.Column(j[0])
		if !kernel.SameType(c.DataType(), f.Type) {
			return nil, fmt.Errorf("column %s is %s, not %s as in the other files", f.Name, kernel.TypeName(c.DataType()), kernel.TypeName(f.Type))
		}
		c.Retain()
		cols[i] = c
		fields[i].Type = c.DataType()
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n)), nil
}

// constColumn is n rows of one value (null for a null literal) of type t.
func constColumn(t arrow.DataType, l expr.Literal, n int) arrow.Array {
	var valid []byte
	if l.Kind == "null" {
		valid = make([]byte, (n+7)/8)
	}
	switch kernel.PlainType(t).ID() {
	case arrow.INT64:
		vals := make([]int64, n)
		if l.Kind == "int64" {
			for i := range vals {
				vals[i] = l.I
			}
		}
		return kernel.NewInt64(vals, valid)
	case arrow.FLOAT64:
		vals := make([]float64, n)
		if v, ok := l.Value().(float64); ok {
			for i := range vals {
				vals[i] = v
			}
		}
		return kernel.NewFloat64(vals, valid)
	case arrow.BOOL:
		vals := make([]uint8, n)
		if l.Kind == "bool" && l.B {
			for i := range vals {
				vals[i] = 1
			}
		}
		return kernel.NewBool(vals, valid)
	}
	dict := kernel.NewString([]int32{0, int32(len(l.S))}, []byte(l.S), nil)
	defer dict.Release()
	return kernel.NewDict(make([]int32, n), dict, valid)
}

// blockPieces splits the files into line blocks of about size bytes, as
// pieces of their datums.
func blockPieces(list []storage.File, datum []int, hive []hiveColumn, size int64) []piece {
	var pieces []piece
	for i, f := range list {
		for _, b := range storage.Blocks([]storage.File{f}, size) {
			pieces = append(pieces, piece{datum: datum[i], rel: f.Rel, hive: hiveDir(f.Rel), bytes: b.End - b.Start, ranges: hiveRanges(hive, f.Rel),
				slice: files.Slice{Path: b.Path, Stamp: b.Stamp, Start: b.Start, End: b.End, Size: b.Size}})
		}
	}
	return pieces
}

// readOptions are what every file reader takes besides its format's own
// options.
type readOptions struct {
	union bool  // files whose columns differ: every column any has
	size  int64 // the most bytes of pieces in a partition
}

// readFormat makes a plan reading pattern's files read in the named format
// with its options (as JSON): the files listed by datum, described by the
// format, their schemas resolved (a self-describing format's files must
// agree unless o.union), hive directories made columns, and the pieces
// (units of self-describing files with their statistics, blocks of whole
// lines of the others) packed into partitions of o.size bytes.
func readFormat(what, name, pattern string, opts any, o readOptions) (node, error) {
	fail := func(err error) (node, error) { return nil, fmt.Errorf("%s %s: %w", what, pattern, err) }
	f, err := files.Named(name)
	if err != nil {
		return fail(err)
	}
	list, datum, err := datumFiles(pattern)
	if err != nil {
		return fail(err)
	}
	layout, err := f.Describe(list, mustJSON(opts))
	if err != nil {
		return fail(err)
	}
	var readOpts any // none: the tasks' arguments carry no options
	if len(layout.ReadOpts) > 0 {
		readOpts = layout.ReadOpts
	}
	var total, rows int64
	for _, fl := range list {
		total += fl.Size
	}
	if layout.Files == nil { // a text format: blocks of lines by one schema
		schema, hive, err := withHive(layout.Schema, list)
		if err != nil {
			return fail(err)
		}
		parts := pack(blockPieces(list, datum, hive, o.size), o.size)
		return fileSource("read-"+name, readOp(name), parts, schema, hive, readOpts, size{total, -1}), nil
	}
	var set schemaSet
	for i, fl := range layout.Files {
		set.add(list[i].Path, fl.Schema)
	}
	schema, err := set.resolve(o.union)
	if err != nil {
		return fail(err)
	}
	width := schema.NumFields()
	schema, hive, err := withHive(schema, list)
	if err != nil {
		return fail(err)
	}
	var pieces []piece
	total = 0
	for i, fl := range layout.Files {
		file := list[i]
		var own []string // the file's columns where it lacks some of the source's
		if fl.Schema.NumFields() != width {
			own = names(fl.Schema)
		}
		pieceOf := func(bytes int64, units []int) piece {
			return piece{datum: datum[i], rel: file.Rel, hive: hiveDir(file.Rel), bytes: bytes, ranges: hiveRanges(hive, file.Rel),
				slice: files.Slice{Path: file.Path, Stamp: file.Fingerprint(), Units: units, Cols: own}}
		}
		if fl.Units == nil { // read whole
			pieces = append(pieces, pieceOf(file.Size, nil))
			total, rows = total+file.Size, -1
			continue
		}
		if len(fl.Units) == 0 { // no rows: an empty partition
			pieces = append(pieces, pieceOf(0, nil))
		}
		for u, unit := range fl.Units {
			p := pieceOf(unit.Bytes, []int{u})
			if p.ranges == nil {
				p.ranges = make(map[string]expr.Range, len(unit.Stats))
			}
			for c, st := range unit.Stats {
				p.ranges[fl.Schema.Field(c).Name] = statsRange(fl.Schema.Field(c).Type, st)
			}
			pieces = append(pieces, p)
			total += unit.Bytes
			if rows >= 0 {
				rows += unit.Rows
			}
		}
	}
	return fileSource("read-"+name, readOp(name), pack(pieces, o.size), schema, hive, readOpts, size{total, rows}), nil
}

// datumFiles lists the files of pattern's datums with their datum's index.
func datumFiles(pattern string) ([]storage.File, []int, error) {
	ds, err := storage.Datums(pattern)
	if err != nil {
		return nil, nil, err
	}
	var list []storage.File
	var datum []int
	for i, d := range ds {
		for _, f := range d.Files {
			list = append(list, f)
			datum = append(datum, i)
		}
	}
	return list, datum, nil
}

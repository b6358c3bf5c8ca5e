package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/files"
	"github.com/duskdata/dusk/io/storage"
	// The file formats register themselves with io/files.
)

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

func (s *schemaSet) Add(path string, sc *arrow.Schema) {
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

// fileSource makes a source of parts; pieces keep their statistics so that
// a pushed-down filter can skip them.
func fileSource(prefix, op string, parts []filePart, schema *arrow.Schema, hive []ops.HiveColumn, opts any, sz Size) Node {
	var optRaw json.RawMessage
	if opts != nil {
		optRaw = ops.MustJSON(opts)
	}
	spec := ops.SpecOf(schema)
	argsOf := func(pieces []piece) []byte {
		a := ops.FileArgs{Schema: spec, Hive: hive, Opts: optRaw}
		for _, p := range pieces {
			a.Slices = append(a.Slices, p.slice)
		}
		a.Slices = mergeSlices(a.Slices)
		if len(hive) > 0 {
			a.Values = hiveLiterals(hive, pieces[0].rel)
		}
		return ops.MustJSON(a)
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
	src := NewSource(prefix, op, args, schema, "", sz)
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

// blockPieces splits the files into line blocks of about size bytes, as
// pieces of their datums.
func blockPieces(list []storage.File, datum []int, hive []ops.HiveColumn, size int64) []piece {
	var pieces []piece
	for i, f := range list {
		for _, b := range storage.Blocks([]storage.File{f}, size) {
			pieces = append(pieces, piece{datum: datum[i], rel: f.Rel, hive: hiveDir(f.Rel), bytes: b.End - b.Start, ranges: hiveRanges(hive, f.Rel),
				slice: files.Slice{Path: b.Path, Stamp: b.Stamp, Start: b.Start, End: b.End, Size: b.Size}})
		}
	}
	return pieces
}

// ReadOptions are what every file reader takes besides its format's own
// options.
type ReadOptions struct {
	Union bool  // files whose columns differ: every column any has
	Size  int64 // the most bytes of pieces in a partition
}

// ReadFormat makes a plan reading pattern's files read in the named format
// with its options (as JSON): the files listed by datum, described by the
// format, their schemas resolved (a self-describing format's files must
// agree unless o.union), hive directories made columns, and the pieces
// (units of self-describing files with their statistics, blocks of whole
// lines of the others) packed into partitions of o.size bytes.
func ReadFormat(what, name, pattern string, opts any, o ReadOptions) (Node, error) {
	fail := func(err error) (Node, error) { return nil, fmt.Errorf("%s %s: %w", what, pattern, err) }
	f, err := files.Named(name)
	if err != nil {
		return fail(err)
	}
	list, datum, err := datumFiles(pattern)
	if err != nil {
		return fail(err)
	}
	layout, err := f.Describe(list, ops.MustJSON(opts))
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
		parts := pack(blockPieces(list, datum, hive, o.Size), o.Size)
		return fileSource("read-"+name, ops.ReadOp(name), parts, schema, hive, readOpts, Size{total, -1}), nil
	}
	var set schemaSet
	for i, fl := range layout.Files {
		set.Add(list[i].Path, fl.Schema)
	}
	schema, err := set.resolve(o.Union)
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
			own = Names(fl.Schema)
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
				p.ranges[fl.Schema.Field(c).Name] = ops.StatsRange(fl.Schema.Field(c).Type, st)
			}
			pieces = append(pieces, p)
			total += unit.Bytes
			if rows >= 0 {
				rows += unit.Rows
			}
		}
	}
	return fileSource("read-"+name, ops.ReadOp(name), pack(pieces, o.Size), schema, hive, readOpts, Size{total, rows}), nil
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

// filtersRead reports whether the read step op tests filters as it
// decodes (its format's Filters).
func filtersRead(op string) bool {
	f, err := ops.FormatOf(op)
	return err == nil && f.Filters()
}

// mergeSlices joins consecutive slices of row groups of one file into one
// slice of several row groups, read as one. A partition's pieces stay a row
// group each, so that a filter skips the row groups it rules out.
func mergeSlices(in []files.Slice) []files.Slice {
	var out []files.Slice
	for _, s := range in {
		if n := len(out); n > 0 && s.Units != nil && out[n-1].Units != nil && out[n-1].Path == s.Path {
			out[n-1].Units = append(slices.Clip(out[n-1].Units), s.Units...)
			continue
		}
		out = append(out, s)
	}
	return out
}

// unionRanges is what is known of the values of two units together.
func unionRanges(a, b map[string]expr.Range) map[string]expr.Range {
	out := make(map[string]expr.Range, len(a))
	for col, ra := range a {
		rb, ok := b[col]
		if !ok {
			continue
		}
		r := expr.Range{Nulls: ra.Nulls || rb.Nulls, AllNull: ra.AllNull && rb.AllNull, Paged: ra.Paged && rb.Paged}
		switch {
		case ra.AllNull:
			r.Min, r.Max = rb.Min, rb.Max
		case rb.AllNull:
			r.Min, r.Max = ra.Min, ra.Max
		case ra.Min != nil && rb.Min != nil:
			r.Min, r.Max = ra.Min, ra.Max
			if c, ok := expr.Compare(rb.Min, ra.Min); ok && c < 0 {
				r.Min = rb.Min
			}
			if c, ok := expr.Compare(rb.Max, ra.Max); ok && c > 0 {
				r.Max = rb.Max
			}
		}
		out[col] = r
	}
	return out
}

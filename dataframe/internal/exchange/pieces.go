package exchange

import (
	"fmt"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// rowsPiece is a shuffle piece not yet copied out of the partition it was
// split from: src's rows at rows, ascending. The split copies nothing, and
// the task that reads an output's pieces copies their rows once, into
// what it builds (a join gathers its output straight from them), where
// copying each piece out and then concatenating copied twice and held
// both. A piece that leaves the process, or spills, is copied out then: it
// is a codec.Lazy.
type rowsPiece struct {
	src  arrow.Record
	rows []int32
	// copied holds columns the split copied out (a join's keys, which its
	// task reads whole), by name: gathering them from the partition later
	// would read a cache line a row.
	copied map[string]arrow.Array
}

// NumRows is the piece's rows, as a record's (a shuffle's merges are
// judged by them).
func (p *rowsPiece) NumRows() int64 { return int64(len(p.rows)) }

func (p *rowsPiece) Retain() {
	p.src.Retain()
	for _, c := range p.copied {
		c.Retain()
	}
}

func (p *rowsPiece) Release() {
	p.src.Release()
	for _, c := range p.copied {
		c.Release()
	}
}

// Record copies the rows out into a record the caller releases.
func (p *rowsPiece) Record() arrow.Record { return kernel.TakeRecord(p.src, p.rows) }

// SizeBytes counts the rows' share of the partition's memory, which they
// keep alive once nothing else holds the partition, their numbers and the
// columns copied out.
func (p *rowsPiece) SizeBytes() int64 {
	var n int64
	for _, c := range p.src.Columns() {
		n += int64(recordBytes(c.Data()))
	}
	rows := int64(len(p.rows))
	n = n*rows/max(p.src.NumRows(), 1) + 4*rows
	for _, c := range p.copied {
		n += int64(recordBytes(c.Data()))
	}
	return n
}

// scatterPieces is how many pieces a split must make for copying them out
// at once to pay: reading each piece's rows apart later costs a cache
// line a row once the pieces outnumber the values a line holds, where
// one pass over the partition reads it once.
const scatterPieces = 16

// scattered splits rec by parts into n pieces copied out in one pass
// (kernel.ScatterPacking, the string columns pack names packed), nil for
// empty ones.
func scattered(rec arrow.Record, parts []int32, n int, pack []int) *registry.Split {
	split := &registry.Split{Pieces: make([]any, n)}
	for i, r := range kernel.ScatterPacking(rec, parts, n, pack) {
		if r != nil {
			split.Pieces[i] = r
		}
	}
	return split
}

// splitOf splits rec by parts into a shuffle transfer's pieces, nil for
// empty ones; a piece holding every row is rec itself. Where names names
// columns (cols, rec's), each row piece holds its rows of them copied out,
// all pieces' in one pass.
func splitOf(rec arrow.Record, parts []int32, n int, names []string, cols []arrow.Array) *registry.Split {
	split := &registry.Split{Pieces: make([]any, n)}
	var copies [][]arrow.Array
	if len(names) > 0 && n > 1 {
		copies = kernel.ScatterColumns(cols, parts, n)
	}
	for i, rows := range kernel.SplitRows(parts, n) {
		switch {
		case len(rows) == 0:
		case len(rows) == int(rec.NumRows()):
			split.Pieces[i] = rec
			rec.Retain()
		default:
			p := &rowsPiece{src: rec, rows: rows}
			if copies != nil {
				p.copied = make(map[string]arrow.Array, len(names))
				for c, name := range names {
					p.copied[name] = copies[i][c]
				}
				copies[i] = nil
			}
			split.Pieces[i] = p
			rec.Retain()
		}
	}
	for _, cs := range copies {
		release(cs)
	}
	return split
}

// PieceRecords returns the records of a task's first side: the pieces a
// shuffle brought, those not yet copied out copied now, or its first
// input. release lets the copies go.
func PieceRecords(op string, tc *registry.Context, inputs []any) (recs []any, release func(), err error) {
	vs := inputs[:1]
	if tc != nil && tc.Pieces != nil {
		vs = tc.Pieces[0]
	}
	var copies []arrow.Record
	release = func() {
		for _, r := range copies {
			r.Release()
		}
	}
	for _, v := range vs {
		switch v := v.(type) {
		case *rowsPiece:
			r := v.Record()
			copies = append(copies, r)
			recs = append(recs, r)
		case arrow.Record:
			recs = append(recs, v)
		default:
			release()
			return nil, nil, fmt.Errorf("%s: input is a %T, not a dataframe partition", op, v)
		}
	}
	return recs, release, nil
}

// sideRows is one side of a task's input, read as one table: the pieces a
// shuffle brought (whole records or rowsPieces), or the task's input.
type sideRows struct {
	recs  []arrow.Record // each piece's record: the piece, or the partition its rows lie in
	loc   *kernel.Rows   // each row's piece and row in its record; nil where every piece is whole
	own   arrow.Record   // a record the side made and releases
	built *builtSide     // a broadcast side, whose join table is built on its join keys
	// pieces are the side's pieces where a row piece holds columns copied
	// out at the split (copiedColumn); else nil.
	pieces []any
}

// sideOf reads side s of a task's inputs; out gives its columns where it
// has no pieces. The caller releases it.
func sideOf(op string, tc *registry.Context, inputs []any, s int, out []ops.ColSpec) (*sideRows, error) {
	var vs []any
	if tc != nil && tc.Pieces != nil {
		vs = tc.Pieces[s]
	} else {
		vs = inputs[s : s+1]
	}
	side := &sideRows{recs: make([]arrow.Record, len(vs))}
	n, lazy := 0, false
	for k, v := range vs {
		switch v := v.(type) {
		case arrow.Record:
			side.recs[k] = v
			n += int(v.NumRows())
		case *builtSide:
			side.recs[k], side.built = v.rec, v
			n += int(v.rec.NumRows())
		case *rowsPiece:
			side.recs[k] = v.src
			n += len(v.rows)
			lazy = true
			if v.copied != nil {
				side.pieces = vs
			}
		default:
			return nil, fmt.Errorf("%s: input is a %T, not a dataframe partition", op, v)
		}
	}
	if len(vs) == 0 {
		side.own = EmptyRecord(out)
		side.recs = []arrow.Record{side.own}
	}
	if !lazy {
		return side, nil
	}
	var part []int32
	if len(vs) > 1 {
		part = make([]int32, 0, n)
	}
	row := make([]int32, 0, n)
	for k, v := range vs {
		from := len(row)
		switch v := v.(type) {
		case arrow.Record:
			for r := range int32(v.NumRows()) {
				row = append(row, r)
			}
		case *rowsPiece:
			row = append(row, v.rows...)
		}
		if part != nil {
			for range len(row) - from {
				part = append(part, int32(k))
			}
		}
	}
	loc := kernel.RowsIn(part, row)
	side.loc = &loc
	return side, nil
}

func (s *sideRows) release() {
	if s.own != nil {
		s.own.Release()
	}
}

// column returns the named column of each piece's record.
func (s *sideRows) column(name string) ([]arrow.Array, error) {
	parts, err := partsOf(s.recs, name)
	if err != nil {
		return nil, err
	}
	return parts, oneKind(name, parts)
}

// oneKind checks that the pieces of a column are of one kind (strings
// plain or encoded alike), as what reads them together needs.
func oneKind(name string, parts []arrow.Array) error {
	first, _ := kernel.KindOf(parts[0].DataType())
	for _, p := range parts[1:] {
		if k, _ := kernel.KindOf(p.DataType()); k != first {
			return fmt.Errorf("column %s is %s in one piece and %s in another",
				name, kernel.TypeName(parts[0].DataType()), kernel.TypeName(p.DataType()))
		}
	}
	return nil
}

// copiedColumn returns the named column's rows, one array a piece, where
// every row piece holds it copied out (a whole piece gives its column):
// they concatenate without a gather. ok is false where one does not.
func (s *sideRows) copiedColumn(name string) (parts []arrow.Array, ok bool) {
	if s.pieces == nil {
		return nil, false
	}
	parts = make([]arrow.Array, len(s.pieces))
	for k, v := range s.pieces {
		if p, lazy := v.(*rowsPiece); lazy {
			if parts[k], ok = p.copied[name]; !ok {
				return nil, false
			}
			continue
		}
		j, err := expr.ColumnIndex(s.recs[k].Schema(), name)
		if err != nil {
			return nil, false
		}
		parts[k] = s.recs[k].Column(j)
	}
	return parts, true
}

// concat returns the side's rows of a column (parts, one per piece) as one
// array, which the caller releases. Dictionary strings stay encoded where
// the pieces' dictionaries are one, or small enough to merge.
func (s *sideRows) concat(parts []arrow.Array) (arrow.Array, error) {
	if s.loc != nil {
		return kernel.TakeParts(parts, *s.loc), nil
	}
	return kernel.ConcatDict(parts)
}

// locate locates the side's rows at idx (-1: none) in the pieces' records
// (parts: a column of them).
func (s *sideRows) locate(parts []arrow.Array, idx []int32) kernel.Rows {
	if s.loc != nil {
		return s.loc.At(idx)
	}
	return kernel.LocateRows(parts, idx)
}

// record returns the side as one record, which the caller releases; schema
// names its columns, or where nil the first piece's record does.
func (s *sideRows) record(schema *arrow.Schema) (arrow.Record, error) {
	if schema == nil {
		schema = s.recs[0].Schema()
	}
	if s.loc == nil && len(s.recs) == 1 {
		s.recs[0].Retain()
		return s.recs[0], nil
	}
	rows := int64(0)
	if s.loc != nil {
		rows = int64(s.loc.Len())
	} else {
		for _, r := range s.recs {
			rows += r.NumRows()
		}
	}
	fields := make([]arrow.Field, schema.NumFields())
	cols := make([]arrow.Array, schema.NumFields())
	defer release(cols)
	parts := make([]arrow.Array, len(s.recs))
	for c := range cols {
		name := schema.Field(c).Name
		for k, r := range s.recs {
			if c >= int(r.NumCols()) {
				return nil, fmt.Errorf("a piece has %d columns, not %d", r.NumCols(), len(cols))
			}
			parts[k] = r.Column(c)
		}
		if err := oneKind(name, parts); err != nil {
			return nil, err
		}
		col, err := s.concat(parts)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", name, err)
		}
		cols[c] = col
		fields[c] = arrow.Field{Name: name, Type: col.DataType(), Nullable: true}
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, rows), nil
}

func KeyColumns(rec arrow.Record, keys []string) ([]arrow.Array, []arrow.DataType, error) {
	cols := make([]arrow.Array, len(keys))
	types := make([]arrow.DataType, len(keys))
	for i, k := range keys {
		j, err := expr.ColumnIndex(rec.Schema(), k)
		if err != nil {
			return nil, nil, err
		}
		cols[i], types[i] = rec.Column(j), rec.Column(j).DataType()
	}
	return cols, types, nil
}

// IDBuffers recycles buffers of one int32 a row that a task drops as it
// ends: the group ids of partial aggregations, garbage once the partial
// states are made, and the outputs of a split's rows, once scattered.
var IDBuffers = sync.Pool{New: func() any { return new([]int32) }}

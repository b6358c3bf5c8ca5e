package exchange

// The join's tasks: a partition's rows meeting a broadcast side's table or
// the other side's rows, the broadcast side's build, the marks of semi and
// anti joins, and a key range read where it is joined (see join.go for the
// plan that chooses among them).

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// JoinOp joins the left and right rows that met in one partition. Each
// side's key columns are concatenated for the hash table and its probes;
// the other columns are gathered from the pieces where their rows lie.
func JoinOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a JoinArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpJoin, err)
	}
	left, err := sideOf(OpJoin, tc, inputs, 0, a.Left)
	if err != nil {
		return nil, err
	}
	defer left.release()
	right, err := sideOf(OpJoin, tc, inputs, 1, a.Right)
	if err != nil {
		return nil, err
	}
	defer right.release()
	out, err := joinRecords(&a, left, right)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpJoin, err)
	}
	return out, nil
}

// JoinReadArgs are a join task's that reads its right rows itself: the
// reader's operation and its tasks' arguments, one a piece of the range.
type JoinReadArgs struct {
	Join  json.RawMessage `json:"join"`
	Read  string          `json:"read"`
	Parts [][]byte        `json:"parts"`
}

// JoinReadOp reads the right rows of a left partition's key range and
// joins them with it (see join.byRanges).
func JoinReadOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a JoinReadArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpJoinRead, err)
	}
	var ja JoinArgs
	if err := json.Unmarshal(a.Join, &ja); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpJoinRead, err)
	}
	read, err := registry.Lookup(a.Read)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpJoinRead, err)
	}
	parts := make([]any, 0, len(a.Parts))
	defer func() {
		for _, p := range parts {
			registry.Release(p)
		}
	}()
	for _, pa := range a.Parts {
		p, err := read(tc, pa, nil)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	right, err := concatRecords(OpJoinRead, ja.Right, parts)
	if err != nil {
		return nil, err
	}
	defer right.Release()
	return JoinOp(tc, a.Join, []any{inputs[0], right})
}

// JoinScanArgs are a broadcast join task's that reads its partition of the
// other (probe) side itself: the reader's operation, the partition's read
// arguments, and the probe side's key.
type JoinScanArgs struct {
	Join      json.RawMessage `json:"join"`
	Read      string          `json:"read"`
	Part      json.RawMessage `json:"part"`
	Key       string          `json:"key"`
	ProbeLeft bool            `json:"probe_left"`
}

// JoinScanOp reads a probe side's partition with the broadcast side's
// filter of its keys as one of the reader's filters, so that the rows no
// build key can match are dropped before the reader builds their other
// columns (TPC-H's q17 keeps the lines of 1 part in 1,000), and joins it
// with the broadcast side (inputs[0]); see join.scan.
func JoinScanOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a JoinScanArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpJoinScan, err)
	}
	f, err := ops.FormatOf(a.Read)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpJoinScan, err)
	}
	return probeBuilt(tc, OpJoinScan, a.Join, a.ProbeLeft, inputs[0], func(built *builtSide) (arrow.Record, error) {
		return ops.ReadFiles(a.Read, a.Part, f, built.scanTests(a.Key))
	})
}

// JoinFilterArgs are a broadcast join task's that filters its partition
// of the other (probe) side itself: the probe side's filter and key.
type JoinFilterArgs struct {
	Join      json.RawMessage `json:"join"`
	Filter    ops.FilterArgs  `json:"filter"`
	Key       string          `json:"key"`
	ProbeLeft bool            `json:"probe_left"`
}

// JoinFilterOp filters a probe side's partition (inputs[1]) by its filter
// and by the broadcast side's filter of its keys, copying only the rows
// both keep, and joins them with the broadcast side (inputs[0]): TPC-H
// q7's loaded lines of two years are copied only where their supplier is
// French or German. See join.filtered.
func JoinFilterOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a JoinFilterArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpJoinFilter, err)
	}
	rec, err := ops.RecordIn(OpJoinFilter, inputs[1])
	if err != nil {
		return nil, err
	}
	return probeBuilt(tc, OpJoinFilter, a.Join, a.ProbeLeft, inputs[0], func(built *builtSide) (arrow.Record, error) {
		var sift func(arrow.Record, []uint8) error
		if test := built.siftTest(a.Key); test != nil {
			sift = func(rec arrow.Record, sel []uint8) error {
				k, err := expr.ColumnIndex(rec.Schema(), a.Key)
				if err != nil {
					return err
				}
				return test.Sift(rec.Column(k), sel)
			}
		}
		probe, err := ops.FilterSifted(tc, &a.Filter, rec, sift)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", OpJoinFilter, err)
		}
		return probe, nil
	})
}

// probeBuilt joins the broadcast side (side) of a join (join, its
// JoinArgs) with the probe partition that probe makes, given the side's
// table: the tasks of join.scan and join.filtered, which make their probe
// side's rows themselves.
func probeBuilt(tc *registry.Context, op string, join json.RawMessage, probeLeft bool, side any, probe func(*builtSide) (arrow.Record, error)) (any, error) {
	var ja JoinArgs
	if err := json.Unmarshal(join, &ja); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", op, err)
	}
	on := ja.RightOn
	if !probeLeft {
		on = ja.LeftOn
	}
	built, err := sideTable(op, on, side)
	if err != nil {
		return nil, err
	}
	defer built.Release()
	rec, err := probe(built)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if probeLeft {
		return JoinOp(tc, join, []any{rec, built})
	}
	return JoinOp(tc, join, []any{built, rec})
}

type JoinBuildArgs struct {
	Keys []string      `json:"keys"`
	Out  []ops.ColSpec `json:"out"`
}

// builtSide is a join's broadcast side, one record, with its hash table on
// its keys: gathered once by a task, it serves every join task that probes
// it in the process. The table is built by the first task that needs it:
// a partition much smaller than the side joins on a table of its own rows
// instead (see buildsLeft), and where every partition does, none is built.
// It travels and spills as its rows (a codec.Lazy), and a join task given
// the rows builds its own table.
type builtSide struct {
	rec   arrow.Record
	keys  []arrow.Array // rec's key columns
	once  sync.Once
	built atomic.Bool // table and err are set
	// building is set by the first task to build the table; unsifted once
	// the table's filter let most rows of a page through (scanTests).
	building, unsifted atomic.Bool
	table              *kernel.JoinTable
	err                error
	refs               atomic.Int64
}

// joinTable returns the side's table, built on the first call.
func (b *builtSide) joinTable() (*kernel.JoinTable, error) {
	b.once.Do(func() {
		b.table, b.err = kernel.BuildJoin(b.keys)
		b.built.Store(true)
	})
	return b.table, b.err
}

// scanTests are the reader's tests of a probe side's key column col: the
// table's filter of the build keys, where the table is built or this task
// is to build it (a task does not wait for another's build to read), the
// table keeps a filter, and no task's first page of minSiftedPage rows or
// more found it to pass more than half of the rows the filters before it
// kept (the join's probe would find as much as fast).
func (b *builtSide) scanTests(col string) []ops.ColumnTest {
	if !b.built.Load() && !b.building.CompareAndSwap(false, true) {
		return nil
	}
	if t := b.siftTest(col); t != nil {
		return []ops.ColumnTest{*t}
	}
	return nil
}

// siftTest is the test of col's values by the table's filter of its keys,
// the table built if it is not yet; nil where the filter is not worth
// asking. The first page of at least minSiftedPage values judges it for
// every task: where it keeps more than half, it is asked no more.
func (b *builtSide) siftTest(col string) *ops.ColumnTest {
	if b.unsifted.Load() {
		return nil
	}
	table, err := b.joinTable()
	if err != nil || !table.Sifts() {
		return nil // the join reports the error
	}
	var judged atomic.Bool
	return &ops.ColumnTest{Col: col, Sift: func(v arrow.Array, keep []uint8) error {
		if len(keep) < minSiftedPage || !judged.CompareAndSwap(false, true) {
			return table.SiftKept(v, keep)
		}
		before := kernel.CountSelected(keep)
		if err := table.SiftKept(v, keep); err != nil {
			return err
		}
		if 2*kernel.CountSelected(keep) > before {
			b.unsifted.Store(true)
		}
		return nil
	}}
}

// minSiftedPage is the fewest values of a page that judge a filter.
const minSiftedPage = 1024

func (b *builtSide) Retain() { b.refs.Add(1) }

func (b *builtSide) Release() {
	if b.refs.Add(-1) == 0 {
		if b.table != nil { // built by some task, all of them done
			b.table.Release()
		}
		b.rec.Release()
	}
}

// Record returns the side's rows, which the caller releases.
func (b *builtSide) Record() arrow.Record {
	b.rec.Retain()
	return b.rec
}

// SizeBytes counts the rows and the table they would build, built or not
// (the store books a value's size once).
func (b *builtSide) SizeBytes() int64 {
	var n int64
	for _, c := range b.rec.Columns() {
		n += int64(recordBytes(c.Data()))
	}
	return n + kernel.JoinTableBytes(int(b.rec.NumRows()))
}

// JoinBuildOp gathers a broadcast side's partitions into one record, its
// hash table to be built by the first join task that needs it.
func JoinBuildOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a JoinBuildArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpJoinBuild, err)
	}
	rec, err := concatRecords(OpJoinBuild, a.Out, inputs)
	if err != nil {
		return nil, err
	}
	return buildSide(OpJoinBuild, rec, a.Keys)
}

// buildSide makes the built side of rec, keyed by its columns on; it takes
// over the caller's reference to rec, released on failure.
func buildSide(op string, rec arrow.Record, on []string) (*builtSide, error) {
	keys, _, err := KeyColumns(rec, on)
	if err != nil {
		rec.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	b := &builtSide{rec: rec, keys: keys}
	b.refs.Store(1)
	return b, nil
}

// JoinMarksOp marks the rows of a broadcast left side (inputs[1]) that
// keys of a right partition (inputs[0]) match, as a record of one boolean
// column, a row per left row.
func JoinMarksOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a JoinArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpJoinMarks, err)
	}
	right, err := ops.RecordIn(OpJoinMarks, inputs[0])
	if err != nil {
		return nil, err
	}
	left, err := sideTable(OpJoinMarks, a.LeftOn, inputs[1])
	if err != nil {
		return nil, err
	}
	defer left.Release()
	keys, _, err := KeyColumns(right, a.RightOn)
	if err != nil {
		return nil, fmt.Errorf("%s: right: %w", OpJoinMarks, err)
	}
	table, err := left.joinTable()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpJoinMarks, err)
	}
	matched := make([]bool, left.rec.NumRows())
	if err := table.Mark(keys, matched); err != nil {
		return nil, fmt.Errorf("%s: %w", OpJoinMarks, err)
	}
	marks := make([]uint8, len(matched))
	for r, ok := range matched {
		if ok {
			marks[r] = 1
		}
	}
	col := kernel.NewBool(marks, nil)
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "matched", Type: arrow.FixedWidthTypes.Boolean}}, nil)
	return array.NewRecord(schema, []arrow.Array{col}, int64(len(marks))), nil
}

// JoinMarkedOp keeps the rows of a broadcast left side (inputs[0]) that
// some right partition marked (a semi join), or that none did (anti).
func JoinMarkedOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a JoinArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpJoinMarked, err)
	}
	left, err := sideTable(OpJoinMarked, a.LeftOn, inputs[0])
	if err != nil {
		return nil, err
	}
	defer left.Release()
	n := int(left.rec.NumRows())
	matched := make([]bool, n)
	for _, v := range inputs[1:] {
		rec, err := ops.RecordIn(OpJoinMarked, v)
		if err != nil {
			return nil, err
		}
		marks, ok := rec.Column(0).(*array.Boolean)
		if !ok || marks.Len() != n {
			return nil, fmt.Errorf("%s: marks of %d rows for %d left rows", OpJoinMarked, rec.NumRows(), n)
		}
		for r := range matched {
			matched[r] = matched[r] || marks.Value(r)
		}
	}
	keep := make([]int32, 0, n)
	for r, ok := range matched {
		if ok == (a.How == kernel.Semi) {
			keep = append(keep, int32(r))
		}
	}
	// The join's columns (the left's, those the plan reads), not the
	// side's whole rows: a later step finds its columns by their place.
	fields := make([]arrow.Field, len(a.Cols))
	cols := make([]arrow.Array, len(a.Cols))
	defer release(cols)
	for i, c := range a.Cols {
		j, err := expr.ColumnIndex(left.rec.Schema(), c.Src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", OpJoinMarked, err)
		}
		cols[i] = kernel.Take(left.rec.Column(j), keep)
		fields[i] = arrow.Field{Name: c.Name, Type: cols[i].DataType(), Nullable: true}
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(len(keep))), nil
}

// sideTable is a broadcast side keyed by its columns on, with its join
// table: the built side a join-build task made, or its rows (moved between
// processes, or read back from disk), for which the table is built here.
// The caller releases it.
func sideTable(op string, on []string, v any) (*builtSide, error) {
	if b, ok := v.(*builtSide); ok {
		b.Retain()
		return b, nil
	}
	rec, err := ops.RecordIn(op, v)
	if err != nil {
		return nil, err
	}
	rec.Retain()
	b, err := buildSide(op, rec, on)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// partsOf returns the named column of each record.
func partsOf(recs []arrow.Record, name string) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(recs))
	for i, r := range recs {
		j, err := expr.ColumnIndex(r.Schema(), name)
		if err != nil {
			return nil, err
		}
		out[i] = r.Column(j)
	}
	return out, nil
}

// joinKeys returns the named key columns of a side, each one array the
// caller releases.
func joinKeys(side *sideRows, names []string) ([]arrow.Array, error) {
	keys := make([]arrow.Array, len(names))
	for k, name := range names {
		var err error
		if parts, copied := side.copiedColumn(name); copied {
			if err = oneKind(name, parts); err == nil {
				keys[k], err = kernel.ConcatDict(parts)
			}
		} else {
			var parts []arrow.Array
			if parts, err = side.column(name); err == nil {
				keys[k], err = side.concat(parts)
			}
		}
		if err != nil {
			release(keys)
			return nil, fmt.Errorf("key %s: %w", name, err)
		}
	}
	return keys, nil
}

// sideTaker returns what gathers a side's columns at idx, its rows that
// the output takes. Rows in order are gathered from the pieces where they
// lie, located once for every column; rows in random order from a column
// concatenated first, as one array serves them fastest.
func sideTaker(side *sideRows, idx []int32, ordered bool) func([]arrow.Array) (arrow.Array, error) {
	var loc *kernel.Rows
	return func(parts []arrow.Array) (arrow.Array, error) {
		if !ordered && len(parts) > 1 {
			col, err := side.concat(parts)
			if err != nil {
				return nil, err
			}
			defer col.Release()
			return kernel.Take(col, idx), nil
		}
		if loc == nil {
			l := side.locate(parts, idx)
			loc = &l
		}
		return kernel.TakeParts(parts, *loc), nil
	}
}

// joinRecords joins the left side with the right.
func joinRecords(a *JoinArgs, left, right *sideRows) (arrow.Record, error) {
	lkeys, err := joinKeys(left, a.LeftOn)
	if err != nil {
		return nil, fmt.Errorf("left: %w", err)
	}
	defer release(lkeys)
	rkeys, err := joinKeys(right, a.RightOn)
	if err != nil {
		return nil, fmt.Errorf("right: %w", err)
	}
	defer release(rkeys)
	// A broadcast side's table, built once, is probed by the other side's
	// rows; else a table is built on the right (the left for right joins).
	// The output follows the probe side's rows.
	var li, ri []int32
	probeRight := a.How == kernel.Right
	switch {
	case right.built != nil && a.How != kernel.Right && a.How != kernel.Outer:
		if buildsLeft(a, lkeys[0].Len(), right.built) {
			li, ri, err = kernel.HashJoinBuildLeft(lkeys, rkeys, a.How)
			break
		}
		var table *kernel.JoinTable
		if table, err = right.built.joinTable(); err == nil {
			li, ri, err = table.Probe(lkeys, a.How)
		}
	case left.built != nil && (a.How == kernel.Inner || a.How == kernel.Right):
		probeRight = true
		how := kernel.Inner
		if a.How == kernel.Right {
			how = kernel.Left // every probe row
		}
		var table *kernel.JoinTable
		if table, err = left.built.joinTable(); err == nil {
			ri, li, err = table.Probe(rkeys, how)
		}
	default:
		li, ri, err = kernel.HashJoin(lkeys, rkeys, a.How)
	}
	if err != nil {
		return nil, err
	}
	takeLeft := sideTaker(left, li, !probeRight)
	takeRight := sideTaker(right, ri, probeRight)
	fields := make([]arrow.Field, len(a.Cols))
	cols := make([]arrow.Array, len(a.Cols))
	defer release(cols)
	for i, c := range a.Cols {
		var col arrow.Array
		var parts []arrow.Array
		switch {
		case c.Key >= 0 && a.How == kernel.Outer:
			col = coalesced(lkeys[c.Key], rkeys[c.Key], li, ri)
		case c.Key >= 0 && a.How == kernel.Right:
			col = kernel.Take(rkeys[c.Key], ri)
		case c.Key >= 0:
			col = kernel.Take(lkeys[c.Key], li)
		case c.Side == 1:
			if parts, err = right.column(c.Src); err == nil {
				col, err = takeRight(parts)
			}
		default:
			if parts, err = left.column(c.Src); err == nil {
				col, err = takeLeft(parts)
			}
		}
		if err != nil {
			return nil, err
		}
		cols[i] = col
		fields[i] = arrow.Field{Name: c.Name, Type: col.DataType(), Nullable: true}
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(len(li))), nil
}

// buildsLeft reports whether a partition of rows left rows joins a broadcast
// right side on a table of its own rows, which the side's rows probe,
// instead of on the side's table: where that table is not built yet, the
// partition is a sixteenth of the side or less, and the left side has so
// few partitions (LeftParts) that probing the side with each costs less
// than building its table once. Probing 1.5M keys with a table of 5,000
// to 54,000 takes 16-25 ms, building a table of the 1.5M 69 ms: TPC-H's
// q2 joins its one partition of 800 parts with the 800,000 part
// suppliers in 43 ms instead of 64-119, while q7, q9 and q12, whose six
// lineitem partitions would take longer, build the orders' table.
func buildsLeft(a *JoinArgs, left int, right *builtSide) bool {
	return !right.built.Load() && a.LeftParts <= FlipParts && int64(left)*16 <= right.rec.NumRows()
}

// FlipParts is the most left partitions that join a broadcast side on
// tables of their own.
const FlipParts = 3

func release(arrays []arrow.Array) {
	for _, a := range arrays {
		if a != nil {
			a.Release()
		}
	}
}

// coalesced is an outer join's shared key: the left row's where there is
// one, else the right's.
func coalesced(l, r arrow.Array, li, ri []int32) arrow.Array {
	idx := make([]int32, len(li))
	for i := range li {
		if li[i] >= 0 {
			idx[i] = li[i]
		} else {
			idx[i] = int32(l.Len()) + ri[i]
		}
	}
	both := []arrow.Array{l, r}
	return kernel.TakeParts(both, kernel.LocateRows(both, idx))
}

// JoinCol is a result column: a side's column, or a key both sides share.
type JoinCol struct {
	Side int    `json:"side"`
	Src  string `json:"src"`
	Name string `json:"name"`
	Key  int    `json:"key"` // for a shared key, its position in On; else -1
}

type JoinSpec struct {
	How       kernel.JoinType `json:"how"`
	LeftOn    []string        `json:"left_on"`
	RightOn   []string        `json:"right_on"`
	Cols      []JoinCol       `json:"cols"`
	Broadcast int64           `json:"-"`
}

type JoinArgs struct {
	JoinSpec
	Left      []ops.ColSpec `json:"left"`
	Right     []ops.ColSpec `json:"right"`
	LeftParts int           `json:"left_parts"` // partitions of the left side
}

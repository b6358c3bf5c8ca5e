package dataframe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// SortValues sorts the rows by cols, the first deciding first, each
// ascending unless ascending says otherwise (one flag for all, or one per
// column); nulls come last. Rows are range-partitioned on the first column
// by boundaries from a sample of every partition, then each partition is
// sorted: the partitions, in order, hold the sorted frame.
func (f *Frame) SortValues(cols []string, ascending ...bool) *Frame {
	if f.err != nil {
		return f
	}
	if len(cols) == 0 {
		return failed(fmt.Errorf("SortValues: no columns given"))
	}
	asc := make([]bool, len(cols))
	switch len(ascending) {
	case 0:
		asc = trues(len(cols))
	case 1:
		for i := range asc {
			asc[i] = ascending[0]
		}
	case len(cols):
		copy(asc, ascending)
	default:
		return failed(fmt.Errorf("SortValues: %d columns but %d directions", len(cols), len(ascending)))
	}
	for _, c := range cols {
		if _, err := expr.Field(f.plan.schema(), c); err != nil {
			return failed(fmt.Errorf("SortValues: %w", err))
		}
	}
	return &Frame{plan: newSort(f.plan, sortArgs{By: cols, Asc: asc})}
}

// SetIndex sorts the frame by col, ascending, so that Loc can select
// ranges of it; the partitions' boundaries come from sampled quantiles.
func (f *Frame) SetIndex(col string) *Frame { return f.SortValues([]string{col}) }

// Loc keeps the rows whose sorted index column (SetIndex) lies within
// [lo, hi], bounds included; a nil bound is open. Each partition is
// searched, not scanned, and the rows are not copied.
func (f *Frame) Loc(lo, hi any) *Frame {
	if f.err != nil {
		return f
	}
	idx := f.plan.partitioning().sorted
	if idx == "" {
		return failed(fmt.Errorf("Loc: the frame has no sorted index: call SetIndex first"))
	}
	fl, _ := expr.Field(f.plan.schema(), idx)
	kind, _ := kernel.KindOf(fl.Type)
	bounds := make([]*expr.Literal, 2)
	for i, v := range []any{lo, hi} {
		if v == nil {
			continue
		}
		var l expr.Literal
		if e, ok := v.(Expr); ok && e.n.Op == "lit" && e.n.Lit != nil { // Date("1994-01-01")
			l = *e.n.Lit
		} else {
			var err error
			if l, err = expr.MakeLiteral(v); err != nil {
				return failed(fmt.Errorf("Loc: %w", err))
			}
		}
		numeric := func(k kernel.Kind) bool { return k == kernel.KindInt || k == kernel.KindFloat }
		if lk := l.LogicalKind(); kind == kernel.KindBool || numeric(lk) != numeric(kind) || !numeric(kind) && lk != kind {
			return failed(fmt.Errorf("Loc: bound %v is %s, the index %s is %s", v, l.LogicalKind(), idx, kind))
		}
		if ts, ok := fl.Type.(*arrow.TimestampType); ok {
			// The bound in the index's unit: the first value at or after lo,
			// the last at or before hi.
			div := int64(1e9) / kernel.UnitsPerSecond(ts.Unit)
			l.I = expr.FloorDiv(l.I+int64(1-i)*(div-1), div)
		}
		bounds[i] = &l
	}
	return &Frame{plan: newLoc(f.plan, locArgs{Col: idx, Lo: bounds[0], Hi: bounds[1]})}
}

type sortArgs struct {
	By  []string  `json:"by"`
	Asc []bool    `json:"asc"`
	Out []colSpec `json:"out,omitempty"`
	N   int       `json:"n,omitempty"` // output partitions
}

// sorted is a sort by a range shuffle.
type sorted struct {
	child node
	args  sortArgs
	tok   string
}

func newSort(child node, a sortArgs) *sorted {
	a.Out = specOf(child.schema())
	return &sorted{child: child, args: a, tok: token("sort", a, child)}
}

func (s *sorted) schema() *arrow.Schema { return s.child.schema() }
func (s *sorted) npartitions() int      { return s.child.npartitions() }
func (s *sorted) name() string          { return s.tok }
func (s *sorted) children() []node      { return []node{s.child} }
func (s *sorted) with(c []node) node    { return newSort(c[0], s.args) }
func (s *sorted) partitioning() partitioning {
	if s.args.Asc[0] {
		return partitioning{sorted: s.args.By[0]}
	}
	return partitioning{}
}

func (s *sorted) explain() string {
	var by []string
	for i, c := range s.args.By {
		by = append(by, c+map[bool]string{true: "", false: " desc"}[s.args.Asc[i]])
	}
	return "sort by " + strings.Join(by, ", ") + " (range shuffle on sampled boundaries)"
}

func (s *sorted) lower(l *lowering) []graph.Key {
	parts := l.keys(s.child)
	a := s.args
	a.N = len(parts)
	args := mustJSON(a)
	if a.N == 1 {
		return l.mapParts(s.tok, opSortRows, args, parts)
	}
	samples := l.mapParts(graph.Name("sort-sample", opSample, args, s.child.name()), opSample, args, parts)
	bargs := mustJSON(boundsArgs{N: a.N, Col: a.By[0], Out: a.Out})
	bounds := graph.Part(graph.Name("sort-bounds", opBounds, bargs, s.tok), 0)
	l.g.Add(&graph.Task{Key: bounds, Op: opBounds, Args: bargs, Inputs: samples})
	return l.shuffle(s.tok, a.N, []shuffleSide{{parts: parts, op: opRangeSplit, args: args, extra: []graph.Key{bounds}}}, opSortRows, args)
}

// samplesPerPartition is how many values of the first sort column each
// partition contributes to the boundaries.
const samplesPerPartition = 256

func sampleOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a sortArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opSample, err)
	}
	rec, err := recordIn(opSample, inputs[0])
	if err != nil {
		return nil, err
	}
	j, err := expr.ColumnIndex(rec.Schema(), a.By[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opSample, err)
	}
	rows := int(rec.NumRows())
	k := min(rows, samplesPerPartition)
	idx := make([]int32, k)
	for i := range idx {
		idx[i] = int32(i * rows / k)
	}
	return columnRecord(a.By[0], kernel.Take(rec.Column(j), idx)), nil
}

// columnRecord wraps one column, which it takes over, in a record: results
// that travel between workers are records.
func columnRecord(name string, col arrow.Array) arrow.Record {
	defer col.Release()
	return array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: name, Type: col.DataType(), Nullable: true}}, nil),
		[]arrow.Array{col}, int64(col.Len()))
}

type boundsArgs struct {
	N   int       `json:"n"`
	Col string    `json:"col"`
	Out []colSpec `json:"out"`
}

// boundsOp picks n-1 boundaries from the samples: their quantiles.
func boundsOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a boundsArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opBounds, err)
	}
	s := schemaOf(a.Out)
	typ := s.Field(s.FieldIndices(a.Col)[0]).Type
	parts := make([]arrow.Array, len(inputs))
	for i, v := range inputs {
		rec, err := recordIn(opBounds, v)
		if err != nil {
			return nil, err
		}
		parts[i] = rec.Column(0)
	}
	all, err := kernel.Concat(typ, parts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opBounds, err)
	}
	defer all.Release()
	order := kernel.SortIndices([]arrow.Array{all}, []bool{true})
	m := all.Len() - all.NullN()
	var idx []int32
	for q := 1; q < a.N && m > 0; q++ {
		idx = append(idx, order[q*m/a.N])
	}
	return columnRecord(a.Col, kernel.Take(all, idx)), nil
}

// rangeSplitOp splits a partition by the boundaries of its first sort column.
func rangeSplitOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a sortArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opRangeSplit, err)
	}
	rec, err := recordIn(opRangeSplit, inputs[0])
	if err != nil {
		return nil, err
	}
	bounds, err := recordIn(opRangeSplit, inputs[1])
	if err != nil {
		return nil, err
	}
	j, err := expr.ColumnIndex(rec.Schema(), a.By[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opRangeSplit, err)
	}
	parts := kernel.RangePartition(rec.Column(j), bounds.Column(0), a.Asc[0], nil)
	return splitOf(rec, parts, a.N, nil, nil), nil
}

// sortRowsOp sorts the rows gathered in one partition.
func sortRowsOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a sortArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opSortRows, err)
	}
	rec, err := gathered(opSortRows, tc, inputs, 0, a.Out)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	keys, _, err := keyColumns(rec, a.By)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opSortRows, err)
	}
	return kernel.TakeRecord(rec, kernel.SortIndices(keys, a.Asc)), nil
}

type locArgs struct {
	Col string        `json:"col"`
	Lo  *expr.Literal `json:"lo,omitempty"`
	Hi  *expr.Literal `json:"hi,omitempty"`
}

// loc selects a range of a sorted index.
type loc struct {
	child node
	args  locArgs
	tok   string
}

func newLoc(child node, a locArgs) *loc {
	return &loc{child: child, args: a, tok: token("loc", a, child)}
}

func (n *loc) schema() *arrow.Schema      { return n.child.schema() }
func (n *loc) npartitions() int           { return n.child.npartitions() }
func (n *loc) name() string               { return n.tok }
func (n *loc) children() []node           { return []node{n.child} }
func (n *loc) with(c []node) node         { return newLoc(c[0], n.args) }
func (n *loc) partitioning() partitioning { return n.child.partitioning() }
func (n *loc) explain() string {
	b := func(l *expr.Literal) string {
		if l == nil {
			return "…"
		}
		return l.String()
	}
	return fmt.Sprintf("loc %s in [%s, %s]", n.args.Col, b(n.args.Lo), b(n.args.Hi))
}
func (n *loc) lower(l *lowering) []graph.Key {
	return l.mapParts(n.tok, opLoc, mustJSON(n.args), l.keys(n.child))
}

func locOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a locArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opLoc, err)
	}
	rec, err := recordIn(opLoc, inputs[0])
	if err != nil {
		return nil, err
	}
	j, err := expr.ColumnIndex(rec.Schema(), a.Col)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opLoc, err)
	}
	var lo, hi any
	if a.Lo != nil {
		lo = a.Lo.Value()
	}
	if a.Hi != nil {
		hi = a.Hi.Value()
	}
	start, end := kernel.SortedRange(rec.Column(j), lo, hi)
	return rec.NewSlice(int64(start), int64(end)), nil
}

// NLargest keeps the n rows with the largest values of cols (the first
// deciding first), largest first, as pandas' nlargest: each partition's
// best n, then those combined a few at a time.
func (f *Frame) NLargest(n int, cols ...string) *Frame { return f.topN("NLargest", n, cols, false) }

// NSmallest keeps the n rows with the smallest values of cols.
func (f *Frame) NSmallest(n int, cols ...string) *Frame { return f.topN("NSmallest", n, cols, true) }

func (f *Frame) topN(what string, n int, cols []string, asc bool) *Frame {
	if f.err != nil {
		return f
	}
	if n < 0 {
		return failed(fmt.Errorf("%s(%d): the number of rows cannot be negative", what, n))
	}
	if len(cols) == 0 {
		return failed(fmt.Errorf("%s: no columns given", what))
	}
	for _, c := range cols {
		if _, err := expr.Field(f.plan.schema(), c); err != nil {
			return failed(fmt.Errorf("%s: %w", what, err))
		}
	}
	a := topArgs{By: cols, K: n}
	for range cols {
		a.Asc = append(a.Asc, asc)
	}
	return &Frame{plan: newTop(f.plan, a)}
}

type topArgs struct {
	By  []string  `json:"by"`
	Asc []bool    `json:"asc"`
	K   int       `json:"k"`
	Out []colSpec `json:"out,omitempty"`
}

// top is the first k rows of an order, in one partition.
type top struct {
	child node
	args  topArgs
	tok   string
}

func newTop(child node, a topArgs) *top {
	a.Out = specOf(child.schema())
	return &top{child: child, args: a, tok: token("top", a, child)}
}

func (t *top) schema() *arrow.Schema      { return t.child.schema() }
func (t *top) npartitions() int           { return 1 }
func (t *top) name() string               { return t.tok }
func (t *top) children() []node           { return []node{t.child} }
func (t *top) with(c []node) node         { return newTop(c[0], t.args) }
func (t *top) partitioning() partitioning { return partitioning{} }
func (t *top) explain() string {
	end := map[bool]string{true: "smallest", false: "largest"}[t.args.Asc[0]]
	return fmt.Sprintf("%d %s by %s (per partition, then combined)", t.args.K, end, strings.Join(t.args.By, ", "))
}
func (t *top) lower(l *lowering) []graph.Key {
	args := mustJSON(t.args)
	local := l.mapParts(graph.Name("top-local", opTop, args, t.child.name()), opTop, args, l.keys(t.child))
	return []graph.Key{treeReduce(l.g, "top", opTop, args, local)}
}

func topOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a topArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opTop, err)
	}
	rec, err := concatOp(nil, mustJSON(concatArgs{Out: a.Out}), inputs)
	if err != nil {
		return nil, err
	}
	r := rec.(arrow.Record)
	defer r.Release()
	keys, _, err := keyColumns(r, a.By)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opTop, err)
	}
	return kernel.TakeRecord(r, kernel.TopN(keys, a.Asc, a.K)), nil
}

// ValueCounts counts the rows of each non-null value of col, as a frame of
// col and "count", most frequent first (ties by value).
func (f *Frame) ValueCounts(col string) *Frame {
	return f.GroupBy(col).Agg(Size().As("count")).SortValues([]string{"count", col}, false, true)
}

// Nunique counts the distinct non-null values of col.
func (f *Frame) Nunique(ctx context.Context, col string) (int64, error) {
	return f.Select(col).Filter(Col(col).NotNull()).DropDuplicates().Len(ctx)
}

package dataframe

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/cespare/xxhash/v2"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// The clean-up verbs: renaming and dropping columns, stacking frames,
// filling and dropping nulls, the first or last rows, samples, and a
// summary.

const (
	opRename  = "df-rename"
	opAlign   = "df-align"
	opLimit   = "df-limit"
	opTail    = "df-tail"
	opSampleN = "df-sample-rows"
)

func init() {
	registry.Register(opRename, recordOp(opRename, renameOp))
	registry.Register(opAlign, recordOp(opAlign, alignOp))
	registry.Register(opLimit, limitOp)
	registry.Register(opTail, recordOp(opTail, func(a *headArgs, rec arrow.Record) (arrow.Record, error) {
		return tailOf(rec, a.N), nil
	}))
	registry.Register(opSampleN, contextRecordOp(opSampleN, sampleRowsOp))
}

// Rename renames columns, old name to new; the others keep theirs.
func (f *Frame) Rename(names map[string]string) *Frame {
	if f.err != nil {
		return f
	}
	in := f.plan.schema()
	fields := slices.Clone(in.Fields())
	for old, new := range names {
		i, err := expr.ColumnIndex(in, old)
		if err != nil {
			return failed(fmt.Errorf("Rename: %w", err))
		}
		fields[i].Name = new
	}
	seen := setOf{}
	for _, fl := range fields {
		if seen[fl.Name] {
			return failed(fmt.Errorf("Rename: two columns would be named %q", fl.Name))
		}
		seen[fl.Name] = true
	}
	return &Frame{plan: newRename(f.plan, names)}
}

// Drop removes columns.
func (f *Frame) Drop(cols ...string) *Frame {
	if f.err != nil {
		return f
	}
	gone := setOf{}
	for _, c := range cols {
		if _, err := expr.Field(f.plan.schema(), c); err != nil {
			return failed(fmt.Errorf("Drop: %w", err))
		}
		gone[c] = true
	}
	var keep []string
	for _, c := range f.Columns() {
		if !gone[c] {
			keep = append(keep, c)
		}
	}
	return f.Select(keep...)
}

// FillNull replaces the nulls of each named column with its value (a
// literal or an Expr), as pandas' fillna with a dict.
func (f *Frame) FillNull(values map[string]any) *Frame {
	cols := make([]string, 0, len(values))
	for c := range values {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, c := range cols {
		if f.err == nil {
			if _, err := expr.Field(f.plan.schema(), c); err != nil {
				return failed(fmt.Errorf("FillNull: %w", err))
			}
		}
		f = f.WithColumn(c, Col(c).FillNull(values[c]))
	}
	return f
}

// DropNulls drops the rows with a null in any of subset (every column if
// none is given), as pandas' dropna.
func (f *Frame) DropNulls(subset ...string) *Frame {
	if f.err != nil {
		return f
	}
	if len(subset) == 0 {
		subset = f.Columns()
	}
	var keep Expr
	for i, c := range subset {
		if _, err := expr.Field(f.plan.schema(), c); err != nil {
			return failed(fmt.Errorf("DropNulls: %w", err))
		}
		if i == 0 {
			keep = Col(c).NotNull()
		} else {
			keep = keep.And(Col(c).NotNull())
		}
	}
	return f.Filter(keep)
}

// Limit keeps the first n rows, in one partition. After a sort it runs as
// a top-n: each partition keeps its best n rows and those are merged, with
// no full sort.
func (f *Frame) Limit(n int) *Frame { return f.limit("Limit", n, false) }

// Tail keeps the last n rows, in one partition.
func (f *Frame) Tail(n int) *Frame { return f.limit("Tail", n, true) }

func (f *Frame) limit(what string, n int, last bool) *Frame {
	if f.err != nil {
		return f
	}
	if n < 0 {
		return failed(fmt.Errorf("%s(%d): the number of rows cannot be negative", what, n))
	}
	if s, ok := f.plan.(*sorted); ok && !last {
		return &Frame{plan: newTop(s.child, topArgs{By: s.args.By, Asc: s.args.Asc, K: n})}
	}
	return &Frame{plan: newLimit(f.plan, n, last)}
}

// Sample keeps each row with probability fraction, as pandas' sample(frac=,
// random_state=): the same seed keeps the same rows of the same data.
func (f *Frame) Sample(fraction float64, seed uint64) *Frame {
	if f.err != nil {
		return f
	}
	if !(fraction >= 0 && fraction <= 1) {
		return failed(fmt.Errorf("Sample(%g): the fraction is not in [0, 1]", fraction))
	}
	a := sampleArgs{Fraction: fraction, Seed: seed}
	return &Frame{plan: newMapNode(f.plan, "sample", opSampleN, a, f.plan.schema(), fmt.Sprintf("sample %g (seed %d)", fraction, seed))}
}

// Concat stacks frames' rows, the first frame's partitions first. Columns
// line up by name, in the order they first appear; a frame without a column
// gives nulls there; a column's types meet as expressions' do (int32 and
// int64 as int64, ints and floats as float64), or Concat fails naming the
// column and the types.
func Concat(frames ...*Frame) *Frame {
	if len(frames) == 0 {
		return failed(fmt.Errorf("Concat: no frames"))
	}
	var fields []arrow.Field
	at := map[string]int{}
	children := make([]node, len(frames))
	for i, f := range frames {
		if f.err != nil {
			return f
		}
		children[i] = f.plan
		for _, fl := range f.plan.schema().Fields() {
			j, ok := at[fl.Name]
			if !ok {
				at[fl.Name] = len(fields)
				fields = append(fields, arrow.Field{Name: fl.Name, Type: kernel.PlainType(fl.Type), Nullable: true})
				continue
			}
			t, ok := expr.CommonType(fields[j].Type, fl.Type)
			if !ok {
				return failed(fmt.Errorf("Concat: column %s is %s in frame 0 and %s in frame %d, which do not meet",
					fl.Name, expr.TypeName(fields[j].Type), expr.TypeName(fl.Type), i))
			}
			fields[j].Type = t
		}
	}
	return &Frame{plan: newConcat(children, arrow.NewSchema(fields, nil))}
}

// Describe summarizes the numeric columns as pandas' describe: a row each
// for count, mean, std, min, 25%, 50%, 75% and max, a column per numeric
// column, after a first column "statistic".
func (f *Frame) Describe(ctx context.Context) (*Table, error) {
	if f.err != nil {
		return nil, f.err
	}
	var cols []string
	for _, fl := range f.plan.schema().Fields() {
		if k, _ := kernel.KindOf(fl.Type); k == kernel.KindInt || k == kernel.KindFloat || k == kernel.KindDecimal {
			cols = append(cols, fl.Name)
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("Describe: no numeric columns")
	}
	stats := []string{"count", "mean", "std", "min", "25%", "50%", "75%", "max"}
	var aggs []Agg
	for i, c := range cols {
		x := Col(c).Cast(Float64)
		for _, a := range []Agg{x.Count(), x.Mean(), x.Std(), x.Min(), x.Quantile(0.25), x.Median(), x.Quantile(0.75), x.Max()} {
			aggs = append(aggs, a.As(fmt.Sprintf("%d %s", i, a.Name())))
		}
	}
	const key = "__describe"
	tb, err := f.WithColumn(key, Lit(0)).GroupBy(key).Agg(aggs...).Compute(ctx)
	if err != nil {
		return nil, fmt.Errorf("Describe: %w", err)
	}
	defer tb.Release()
	rec := tb.Record()
	out := make([]arrow.Array, 0, len(cols)+1)
	names := kernel.NewString(stringOffsets(stats), []byte(strings.Join(stats, "")), nil)
	out = append(out, names)
	fields := []arrow.Field{{Name: "statistic", Type: kernel.String}}
	for i, c := range cols {
		vals := make([]float64, len(stats))
		valid := make([]byte, 1)
		for s := range stats {
			col := rec.Column(1 + i*len(stats) + s)
			if rec.NumRows() == 0 || col.IsNull(0) {
				continue
			}
			valid[0] |= 1 << s
			switch a := col.(type) {
			case *array.Int64:
				vals[s] = float64(a.Value(0))
			case *array.Float64:
				vals[s] = a.Value(0)
			}
		}
		out = append(out, kernel.NewFloat64(vals, valid))
		fields = append(fields, arrow.Field{Name: c, Type: kernel.Float64, Nullable: true})
	}
	res := array.NewRecord(arrow.NewSchema(fields, nil), out, int64(len(stats)))
	for _, a := range out {
		a.Release()
	}
	return &Table{rec: res}, nil
}

// stringOffsets are the offsets of strs laid end to end.
func stringOffsets(strs []string) []int32 {
	offs := make([]int32, len(strs)+1)
	for i, s := range strs {
		offs[i+1] = offs[i] + int32(len(s))
	}
	return offs
}

// ---- plan steps

// renaming is a step that renames columns.
type renaming struct {
	child node
	names map[string]string
	out   *arrow.Schema
	tok   string
}

type renameArgs struct {
	Names [][2]string `json:"names"` // old, new; sorted by old
}

func (n *renaming) args() renameArgs {
	var a renameArgs
	for old, new := range n.names {
		a.Names = append(a.Names, [2]string{old, new})
	}
	slices.SortFunc(a.Names, func(x, y [2]string) int { return strings.Compare(x[0], y[0]) })
	return a
}

func newRename(child node, names map[string]string) *renaming {
	fields := slices.Clone(child.schema().Fields())
	kept := map[string]string{}
	for i, fl := range fields {
		if new, ok := names[fl.Name]; ok {
			fields[i].Name, kept[fl.Name] = new, new
		}
	}
	n := &renaming{child: child, names: kept, out: arrow.NewSchema(fields, nil)}
	n.tok = token("rename", n.args(), child)
	return n
}

func (n *renaming) schema() *arrow.Schema      { return n.out }
func (n *renaming) npartitions() int           { return n.child.npartitions() }
func (n *renaming) name() string               { return n.tok }
func (n *renaming) children() []node           { return []node{n.child} }
func (n *renaming) with(c []node) node         { return newRename(c[0], n.names) }
func (n *renaming) partitioning() partitioning { return partitioning{} }
func (n *renaming) explain() string {
	var parts []string
	for _, p := range n.args().Names {
		parts = append(parts, p[0]+" -> "+p[1])
	}
	return "rename " + strings.Join(parts, ", ")
}
func (n *renaming) lower(l *lowering) []graph.Key {
	return l.mapParts(n.tok, opRename, mustJSON(n.args()), l.keys(n.child))
}

// childNeed maps columns wanted of the output to the child's names.
func (n *renaming) childNeed(need setOf) setOf {
	back := map[string]string{}
	for old, new := range n.names {
		back[new] = old
	}
	out := setOf{}
	for c := range need {
		if old, ok := back[c]; ok {
			out[old] = true
		} else if _, moved := n.names[c]; !moved {
			out[c] = true
		}
	}
	return out
}

func renameOp(a *renameArgs, rec arrow.Record) (arrow.Record, error) {
	fields := slices.Clone(rec.Schema().Fields())
	for _, p := range a.Names {
		i, err := expr.ColumnIndex(rec.Schema(), p[0])
		if err != nil {
			return nil, err
		}
		fields[i].Name = p[1]
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), rec.Columns(), rec.NumRows()), nil
}

// mapNode is a step that runs one operation on each partition, keeping
// the schema it is given.
type mapNode struct {
	child  node
	prefix string
	op     string
	args   any
	out    *arrow.Schema
	about  string
	tok    string
}

func newMapNode(child node, prefix, op string, args any, out *arrow.Schema, about string) *mapNode {
	return &mapNode{child: child, prefix: prefix, op: op, args: args, out: out, about: about, tok: token(prefix, args, child)}
}

func (n *mapNode) schema() *arrow.Schema { return n.out }
func (n *mapNode) npartitions() int      { return n.child.npartitions() }
func (n *mapNode) name() string          { return n.tok }
func (n *mapNode) children() []node      { return []node{n.child} }
func (n *mapNode) with(c []node) node {
	return newMapNode(c[0], n.prefix, n.op, n.args, n.out, n.about)
}
func (n *mapNode) partitioning() partitioning { return n.child.partitioning() }
func (n *mapNode) explain() string            { return n.about }
func (n *mapNode) lower(l *lowering) []graph.Key {
	return l.mapParts(n.tok, n.op, mustJSON(n.args), l.keys(n.child))
}

type sampleArgs struct {
	Fraction float64 `json:"fraction"`
	Seed     uint64  `json:"seed"`
}

// sampleRowsOp keeps a row where a hash of the seed, the partition's task
// key and the row's number falls under the fraction.
func sampleRowsOp(tc *registry.Context, a *sampleArgs, rec arrow.Record) (arrow.Record, error) {
	n := int(rec.NumRows())
	sel := make([]uint8, n)
	base := xxhash.Sum64String(string(tc.Key)) ^ a.Seed*0x9e3779b97f4a7c15
	limit := uint64(a.Fraction * (1 << 53))
	for i := range sel {
		if splitmix(base+uint64(i))>>11 < limit {
			sel[i] = 1
		}
	}
	return kernel.Filter(rec, sel), nil
}

// splitmix is SplitMix64's finalizer: a good hash of a counter.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// limited is the first or last n rows, in one partition.
type limited struct {
	child node
	args  limitArgs
	tok   string
}

type limitArgs struct {
	N    int       `json:"n"`
	Last bool      `json:"last,omitempty"`
	Out  []colSpec `json:"out"`
}

func newLimit(child node, n int, last bool) *limited {
	a := limitArgs{N: n, Last: last, Out: specOf(child.schema())}
	return &limited{child: child, args: a, tok: token("limit", a, child)}
}

func (n *limited) schema() *arrow.Schema      { return n.child.schema() }
func (n *limited) npartitions() int           { return 1 }
func (n *limited) name() string               { return n.tok }
func (n *limited) children() []node           { return []node{n.child} }
func (n *limited) with(c []node) node         { return newLimit(c[0], n.args.N, n.args.Last) }
func (n *limited) partitioning() partitioning { return partitioning{} }
func (n *limited) explain() string {
	return fmt.Sprintf("%s %d rows", map[bool]string{false: "first", true: "last"}[n.args.Last], n.args.N)
}
func (n *limited) lower(l *lowering) []graph.Key {
	per := opHead
	if n.args.Last {
		per = opTail
	}
	args := mustJSON(n.args)
	local := l.mapParts(graph.Name("limit-local", per, args, n.child.name()), per, mustJSON(headArgs{N: n.args.N}), l.keys(n.child))
	return []graph.Key{treeReduce(l.g, "limit", opLimit, args, local)}
}

// limitOp concatenates its inputs in order and keeps the first (or last) n
// rows.
func limitOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a limitArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opLimit, err)
	}
	rec, err := concatOp(nil, mustJSON(concatArgs{Out: a.Out}), inputs)
	if err != nil {
		return nil, err
	}
	r := rec.(arrow.Record)
	defer r.Release()
	if a.Last {
		return tailOf(r, a.N), nil
	}
	r.Retain()
	if int64(a.N) < r.NumRows() {
		defer r.Release()
		return r.NewSlice(0, int64(a.N)), nil
	}
	return r, nil
}

// tailOf is rec's last n rows, retained.
func tailOf(rec arrow.Record, n int) arrow.Record {
	rows := rec.NumRows()
	if int64(n) >= rows {
		rec.Retain()
		return rec
	}
	return rec.NewSlice(rows-int64(n), rows)
}

// stacked is the partitions of several frames, one after another, each
// aligned to one schema.
type stacked struct {
	parts []node
	out   *arrow.Schema
	tok   string
}

func newConcat(children []node, out *arrow.Schema) *stacked {
	return &stacked{parts: children, out: out, tok: token("concat", specOf(out), children...)}
}

func (n *stacked) schema() *arrow.Schema { return n.out }
func (n *stacked) npartitions() int {
	total := 0
	for _, c := range n.parts {
		total += c.npartitions()
	}
	return total
}
func (n *stacked) name() string               { return n.tok }
func (n *stacked) children() []node           { return n.parts }
func (n *stacked) with(c []node) node         { return newConcat(c, n.out) }
func (n *stacked) partitioning() partitioning { return partitioning{} }
func (n *stacked) explain() string            { return fmt.Sprintf("concat %d frames", len(n.parts)) }
func (n *stacked) lower(l *lowering) []graph.Key {
	var keys []graph.Key
	args := mustJSON(concatArgs{Out: specOf(n.out)})
	for _, c := range n.parts {
		keys = append(keys, l.mapParts(graph.Name("align", opAlign, args, c.name()), opAlign, args, l.keys(c))...)
	}
	return keys
}

// alignOp gives a partition the stacked schema: columns in its order, cast
// to its types, nulls for those the partition lacks.
func alignOp(a *concatArgs, rec arrow.Record) (arrow.Record, error) {
	out := schemaOf(a.Out)
	n := int(rec.NumRows())
	cols := make([]arrow.Array, out.NumFields())
	for i, fl := range out.Fields() {
		j := rec.Schema().FieldIndices(fl.Name)
		if len(j) == 0 {
			cols[i] = expr.Retype(kernel.Nulls(expr.PhysicalKind(fl.Type), n), fl.Type)
			continue
		}
		col := rec.Column(j[0])
		if kernel.SameType(col.DataType(), fl.Type) {
			col.Retain()
			cols[i] = col
			continue
		}
		cast, err := expr.CastRule(kernel.PlainType(col.DataType()), fl.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", fl.Name, err)
		}
		if cols[i], err = cast(col, fl.Type, true); err != nil {
			return nil, fmt.Errorf("column %s: %w", fl.Name, err)
		}
	}
	fields := slices.Clone(out.Fields())
	for i := range fields {
		fields[i].Type = cols[i].DataType()
	}
	rec2 := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec2, nil
}

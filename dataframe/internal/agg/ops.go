package agg

// The grouping's tasks: partial states of a partition's groups, their
// combination in a tree or after a shuffle, the final values, and the
// holistic aggregations over a group's rows (the plan that lowers to them is dataframe/internal/plan/groupby.go).

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/alloc"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// A partial or combined state record holds the key columns, then each
// aggregation's state columns, named "<result>#<i>".

func init() {
	registry.RegisterGPU(OpPartial, ops.ContextRecordOp(OpPartial, PartialOp))
	registry.Register(OpCombine, CombineOp)
	registry.Register(OpFinal, ops.RecordOp(OpFinal, FinalOp))
	registry.Register(OpUnpack, UnpackOp)
	registry.Register(OpGroupRows, GroupRowsOp)
}

func (a *GroupArgs) funcs() ([]kernel.AggFunc, error) {
	fns := make([]kernel.AggFunc, len(a.Aggs))
	for i, s := range a.Aggs {
		fn, err := kernel.ParseAggFunc(s.Fn)
		if err != nil {
			return nil, err
		}
		fns[i] = fn
	}
	return fns, nil
}

func numStates(fn kernel.AggFunc) int { return len(fn.StateTypes(kernel.Float64)) }

// stateRecord assembles keys and state columns, releasing them.
func stateRecord(a *GroupArgs, fns []kernel.AggFunc, keys []arrow.Array, states [][]arrow.Array) arrow.Record {
	var fields []arrow.Field
	var cols []arrow.Array
	for i, k := range keys {
		fields = append(fields, arrow.Field{Name: a.Keys[i], Type: k.DataType(), Nullable: true})
		cols = append(cols, k)
	}
	for i, st := range states {
		for j, c := range st {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("%s#%d", a.Aggs[i].As, j), Type: c.DataType(), Nullable: true})
			cols = append(cols, c)
		}
	}
	n := int64(0)
	if len(cols) > 0 {
		n = int64(cols[0].Len())
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, n)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func PartialOp(tc *registry.Context, a *GroupArgs, rec arrow.Record) (arrow.Record, error) {
	fns, err := a.funcs()
	if err != nil {
		return nil, err
	}
	keys, _, err := exchange.KeyColumns(rec, a.Keys)
	if err != nil {
		return nil, err
	}
	if k := ops.Accelerator(tc); k != nil && !(a.NullKeys && kernel.AnyNull(keys)) {
		if out, ok, err := gpuPartial(k, a, fns, rec, keys); ok || err != nil {
			return out, err
		}
	}
	buf := exchange.IDBuffers.Get().(*[]int32)
	defer exchange.IDBuffers.Put(buf)
	if slices.Equal(a.Keys, []string{AllRows}) {
		// Frame.Agg's one group of every row: its key, a constant, is not
		// looked at (grouping 60M rows by it cost more than a sum of them).
		n := int(rec.NumRows())
		gkeys := []arrow.Array{array.NewSlice(keys[0], 0, int64(min(n, 1)))}
		states, err := partialStates(a, fns, rec, alloc.Zeros[int32](n), groupCount(gkeys))
		if err != nil {
			releaseStates([][]arrow.Array{gkeys})
			return nil, err
		}
		return stateRecord(a, fns, gkeys, states), nil
	}
	if mostlyDistinct(keys) {
		// Pre-aggregating would not shrink the partition: each row is its
		// own group, and the combine step does the grouping once (as Spark
		// and DuckDB skip partial aggregation of near-unique keys).
		states, err := rowStates(a, fns, rec, buf)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			k.Retain()
		}
		return stateRecord(a, fns, keys, states), nil
	}
	ids, gkeys := a.groupKeys(keys, *buf)
	*buf = ids
	states, err := partialStates(a, fns, rec, ids, groupCount(gkeys))
	if err != nil {
		releaseStates([][]arrow.Array{gkeys})
		return nil, err
	}
	return stateRecord(a, fns, gkeys, states), nil
}

// releaseStates releases state columns made before an error.
func releaseStates(states [][]arrow.Array) {
	for _, st := range states {
		for _, c := range st {
			c.Release()
		}
	}
}

// rowStates are the partial states of rows that are each their own group,
// as the aggregation table says (AggFunc.OneRow): a sum, minimum or maximum
// of a column without nulls is the column itself and a count is one a row
// (kernel.OneEach, no buffer to fill, move or read), with nothing
// computed; the other aggregations take partialStates with every row its
// own group (ids in buf).
func rowStates(a *GroupArgs, fns []kernel.AggFunc, rec arrow.Record, buf *[]int32) ([][]arrow.Array, error) {
	n := int(rec.NumRows())
	states := make([][]arrow.Array, len(fns))
	count := func() arrow.Array { return kernel.OneEach(n) }
	for i, fn := range fns {
		if fn.Inputs() == 0 { // a size
			states[i] = []arrow.Array{count()}
			continue
		}
		j, err := expr.ColumnIndex(rec.Schema(), a.Aggs[i].Col)
		if err != nil {
			return nil, err
		}
		col := rec.Column(j)
		_, isInt := col.(*array.Int64)
		_, isFloat := col.(*array.Float64)
		if col.NullN() > 0 || !isInt && !isFloat {
			continue
		}
		switch fn.OneRow() {
		case kernel.OneRowCount:
			states[i] = []arrow.Array{count()}
		case kernel.OneRowValue:
			col.Retain()
			states[i] = []arrow.Array{col}
		case kernel.OneRowFloatMean:
			if isFloat {
				col.Retain()
				states[i] = []arrow.Array{col, count()}
			}
		}
	}
	for i, st := range states {
		if st != nil {
			continue
		}
		*buf = identity(*buf, n)
		rest, err := partialStates(&GroupArgs{Aggs: a.Aggs[i : i+1]}, fns[i:i+1], rec, *buf, n)
		if err != nil {
			return nil, err
		}
		states[i] = rest[0]
	}
	return states, nil
}

func groupCount(gkeys []arrow.Array) int { return gkeys[0].Len() }

// probeRows is how many leading rows mostlyDistinct groups.
const probeRows = 4096

// mostlyDistinct reports whether the leading rows of a partition several
// times their number have more than 90% distinct keys. Keys that group by
// direct indexing over fewer codes than half the partition's rows are
// never skipped: a sample of them looks distinct where the partition
// repeats each code, and their table is small. Over more codes (at 1e8
// rows, db-benchmark's q5 groups 1.25M rows by a million), pre-aggregating
// shrinks the partition by less than half, at a cache miss a row. (Checked
// last: it reads the whole key column.)
func mostlyDistinct(keys []arrow.Array) bool {
	if len(keys) == 0 || keys[0].Len() < 4*probeRows {
		return false
	}
	head := make([]arrow.Array, len(keys))
	for i, k := range keys {
		head[i] = array.NewSlice(k, 0, probeRows)
		defer head[i].Release()
	}
	_, firsts := kernel.GroupRows(head, nil)
	if len(firsts) <= probeRows*9/10 {
		return false
	}
	size := kernel.DenseSize(keys)
	return size == 0 || size > keys[0].Len()/2
}

// identity numbers n rows as n groups, into buf if it is large enough.
func identity(buf []int32, n int) []int32 {
	if cap(buf) < n {
		buf = make([]int32, n)
	}
	buf = buf[:n]
	for i := range buf {
		buf[i] = int32(i)
	}
	return buf
}

// partialStates computes each aggregation's state columns over rec's rows
// grouped by ids into n groups.
func partialStates(a *GroupArgs, fns []kernel.AggFunc, rec arrow.Record, ids []int32, n int) ([][]arrow.Array, error) {
	inputs := make([][]arrow.Array, len(fns))
	for i, fn := range fns {
		inputs[i] = make([]arrow.Array, fn.Inputs())
		for c, name := range []string{a.Aggs[i].Col, a.Aggs[i].Col2}[:fn.Inputs()] {
			j, err := expr.ColumnIndex(rec.Schema(), name)
			if err != nil {
				return nil, err
			}
			inputs[i][c] = rec.Column(j)
		}
	}
	states, i, err := kernel.Partials(fns, inputs, ids, n)
	if err != nil {
		return nil, fmt.Errorf("%s of column %s: %w", fns[i], a.Aggs[i].Col, err)
	}
	return states, nil
}

func CombineOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a GroupArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpCombine, err)
	}
	return combineStates(&a, inputs)
}

// combineStates merges partial state records into one.
func combineStates(a *GroupArgs, inputs []any) (arrow.Record, error) {
	fns, err := a.funcs()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpCombine, err)
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%s: no partial aggregates", OpCombine)
	}
	// The inputs' keys are grouped as one (kernel.GroupPieces), each
	// input's states merged by its rows' groups.
	keyParts := make([][]arrow.Array, len(inputs))
	perAgg := make([][][]arrow.Array, len(fns)) // agg -> input -> state columns
	for r, in := range inputs {
		rec, ok := in.(arrow.Record)
		if !ok {
			return nil, fmt.Errorf("%s: input is a %T, not a partial aggregate", OpCombine, in)
		}
		keys, _, err := exchange.KeyColumns(rec, a.Keys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", OpCombine, err)
		}
		keyParts[r] = keys
		col := len(a.Keys)
		for i, fn := range fns {
			k := numStates(fn)
			perAgg[i] = append(perAgg[i], rec.Columns()[col:col+k])
			col += k
		}
	}
	ids, gkeys, err := a.groupPieces(keyParts)
	if err != nil {
		return nil, fmt.Errorf("%s: keys %v: %w", OpCombine, a.Keys, err)
	}
	states, i, err := kernel.MergeAll(fns, perAgg, ids, groupCount(gkeys))
	if err != nil {
		releaseStates([][]arrow.Array{gkeys})
		return nil, fmt.Errorf("%s: %s of column %s: %w", OpCombine, fns[i], a.Aggs[i].Col, err)
	}
	return stateRecord(a, fns, gkeys, states), nil
}

func FinalOp(a *GroupArgs, rec arrow.Record) (arrow.Record, error) {
	fns, err := a.funcs()
	if err != nil {
		return nil, err
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for i, k := range a.Keys {
		key := kernel.UnpackStrings(rec.Column(i)) // the strings a shuffle's combine left packed
		defer key.Release()
		fields = append(fields, arrow.Field{Name: k, Type: key.DataType(), Nullable: true})
		cols = append(cols, key)
	}
	col := len(a.Keys)
	for i, fn := range fns {
		k := numStates(fn)
		res := a.Aggs[i].final(fn, rec.Columns()[col:col+k])
		defer res.Release()
		if j := len(a.Keys) + i; j < len(a.Out) {
			res = expr.Retype(res, ops.TypeNamed(a.Out[j].Type))
		}
		fields = append(fields, arrow.Field{Name: a.Aggs[i].As, Type: res.DataType(), Nullable: true})
		cols = append(cols, res)
		col += k
	}
	out := array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	return sortedByKeys(a, out), nil
}

// sortedByKeys sorts a result by its keys when it is the whole result (one
// partition), as pandas; a split result is not, as Dask's split_out. It
// takes over rec.
func sortedByKeys(a *GroupArgs, rec arrow.Record) arrow.Record {
	if !a.Sort {
		return rec
	}
	defer rec.Release()
	return kernel.TakeRecord(rec, kernel.SortIndices(rec.Columns()[:len(a.Keys)], Trues(len(a.Keys))))
}

// UnpackOp combines the partial aggregates shuffled to one output of a
// SplitOut aggregation and finishes them.
func UnpackOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a GroupArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpUnpack, err)
	}
	if tc != nil && tc.Pieces != nil && len(tc.Pieces[0]) == 0 {
		return exchange.EmptyRecord(a.Out), nil
	}
	// The pieces are combined as they are: the states need no
	// concatenating first, only the keys do.
	states, release, err := exchange.PieceRecords(OpUnpack, tc, inputs)
	if err != nil {
		return nil, err
	}
	defer release()
	combined, err := combineStates(&a, states)
	if err != nil {
		return nil, err
	}
	defer combined.Release()
	out, err := FinalOp(&a, combined)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpUnpack, err)
	}
	return out, nil
}

// GroupRowsOp runs a grouped step on rows that a shuffle has brought
// together by their keys.
func GroupRowsOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a GroupArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpGroupRows, err)
	}
	rec, err := exchange.Gathered(OpGroupRows, tc, inputs, 0, nil)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	out, err := groupRows(tc, &a, rec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpGroupRows, err)
	}
	return out, nil
}

func groupRows(tc *registry.Context, a *GroupArgs, rec arrow.Record) (arrow.Record, error) {
	if rec.NumRows() == 0 {
		return exchange.EmptyRecord(a.Out), nil
	}
	keys, _, err := exchange.KeyColumns(rec, a.Keys)
	if err != nil {
		return nil, err
	}
	ids, gkeys := a.groupKeys(keys, nil)
	defer func() {
		for _, k := range gkeys {
			k.Release()
		}
	}()
	n := groupCount(gkeys)
	switch a.Mode {
	case ModeTopN:
		col, err := expr.ColumnIndex(rec.Schema(), a.Col)
		if err != nil {
			return nil, err
		}
		rows := kernel.GroupTopN(rec.Column(col), ids, n, a.K, a.Largest)
		return kernel.TakeRecord(rec, rows), nil
	case ModeApply:
		return applyGroups(tc, a, rec, ids, n)
	}
	results, err := holisticAggs(a, rec, ids, n)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, r := range results {
			r.Release()
		}
	}()
	if a.Mode == ModeTransform {
		fields := slices.Clone(rec.Schema().Fields())
		cols := slices.Clone(rec.Columns())
		var owned []arrow.Array
		for i, r := range results {
			c := kernel.Take(r, ids)
			owned = append(owned, c)
			fields = append(fields, arrow.Field{Name: a.Aggs[i].As, Type: c.DataType(), Nullable: true})
			cols = append(cols, c)
		}
		defer func() {
			for _, c := range owned {
				c.Release()
			}
		}()
		return array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
	}
	fields := make([]arrow.Field, 0, len(gkeys)+len(results))
	cols := append(slices.Clone(gkeys), results...)
	for i, k := range gkeys {
		fields = append(fields, arrow.Field{Name: a.Keys[i], Type: k.DataType(), Nullable: true})
	}
	for i, r := range results {
		if j := len(a.Keys) + i; j < len(a.Out) {
			if t := expr.Retype(r, ops.TypeNamed(a.Out[j].Type)); t != r {
				r.Release()
				r, results[i], cols[len(a.Keys)+i] = t, t, t
			}
		}
		fields = append(fields, arrow.Field{Name: a.Aggs[i].As, Type: r.DataType(), Nullable: true})
	}
	return sortedByKeys(a, array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))), nil
}

func Trues(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// holisticAggs computes each aggregation of a over all its groups' rows.
func holisticAggs(a *GroupArgs, rec arrow.Record, ids []int32, n int) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(a.Aggs))
	fail := func(err error) ([]arrow.Array, error) {
		for _, r := range out {
			r.Release()
		}
		return nil, err
	}
	for _, s := range a.Aggs {
		var col arrow.Array
		if s.Col != "" {
			j, err := expr.ColumnIndex(rec.Schema(), s.Col)
			if err != nil {
				return fail(err)
			}
			col = rec.Column(j)
		}
		one := GroupArgs{Aggs: []Spec{s}}
		fns, err := one.funcs()
		if err != nil {
			return fail(err)
		}
		var r arrow.Array
		if fns[0].Holistic() {
			r, err = kernel.Whole(fns[0], col, ids, n, s.Q)
		} else {
			states, serr := partialStates(&one, fns, rec, ids, n)
			if serr != nil {
				return fail(serr)
			}
			r = s.final(fns[0], states[0])
			for _, c := range states[0] {
				c.Release()
			}
		}
		if err != nil {
			return fail(fmt.Errorf("%s: %w", s.As, err))
		}
		out = append(out, r)
	}
	return out, nil
}

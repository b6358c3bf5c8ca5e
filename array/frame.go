package array

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"

	"github.com/apache/arrow/go/v15/arrow"
	arrowarray "github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

const (
	opFrameRows     = "array-frame-rows"
	opFrameIntNulls = "array-frame-int-nulls"
	opFromFrame     = "array-from-frame"
)

func init() {
	registry.Register(opFrameRows, frameRowsOp)
	registry.Register(opFrameIntNulls, frameIntNullsOp)
	registry.Register(opFromFrame, fromFrameOp)
}

// FromColumns is the 2-d array (rows × len(cols)) of f's columns, as Dask's
// df[cols].to_dask_array(lengths=True); no cols means every column. Each
// non-empty partition of f becomes one row-chunk holding all the columns
// (empty partitions add none; a frame with no rows gives one 0-row chunk).
//
// Building it runs f once, on the client in ctx, to count each partition's
// rows and the nulls of its int64 columns; computing the array runs f again,
// so Persist a costly f first. The dtype is Int64 when every column is
// int64 without nulls, else Float64 with nulls as NaN (an int64 column with
// nulls becomes float64, as in pandas). Bool and string columns are refused.
// A persisted f must stay unreleased while the array is used.
func FromColumns(ctx context.Context, f *dataframe.Frame, cols ...string) *Array {
	return fromFrame(ctx, "FromColumns", f, cols, false)
}

// FromColumn is the 1-d array of f's column col, one chunk per non-empty
// partition; what runs when, dtypes and nulls are as in FromColumns.
func FromColumn(ctx context.Context, f *dataframe.Frame, col string) *Array {
	return fromFrame(ctx, "FromColumn", f, []string{col}, true)
}

// fromFrameArgs are a chunk task's arguments.
type fromFrameArgs struct {
	Cols  []string `json:"cols"`
	DType DType    `json:"dtype"`
	Rows  int      `json:"rows"` // what the row count found; checked again
	OneD  bool     `json:"one_d,omitempty"`
}

func fromFrame(ctx context.Context, what string, f *dataframe.Frame, cols []string, oneD bool) *Array {
	fail := func(format string, a ...any) *Array {
		return failed(fmt.Errorf("array: "+what+": "+format, a...))
	}
	if f == nil {
		return fail("no frame")
	}
	if err := f.Err(); err != nil {
		return fail("%w", err)
	}
	schema := f.Schema()
	if len(cols) == 0 {
		cols = f.Columns()
	}
	// Select each column once; a column named twice is read twice.
	var uniq, intCols []string
	seen := map[string]bool{}
	allInt := true
	for _, c := range cols {
		idx := schema.FieldIndices(c)
		if len(idx) == 0 {
			return fail("no column %q: the frame has %v", c, f.Columns())
		}
		t := schema.Field(idx[0]).Type
		k, err := kernel.KindOf(t)
		if err != nil || (k != kernel.KindInt && k != kernel.KindFloat && k != kernel.KindNull) {
			return fail("column %q has type %s: only int64 and float64 columns make arrays", c, t)
		}
		allInt = allInt && k == kernel.KindInt
		if !seen[c] {
			seen[c] = true
			uniq = append(uniq, c)
			if k == kernel.KindInt {
				intCols = append(intCols, c)
			}
		}
	}
	ex, err := collections.ExecutorFrom(ctx)
	if err != nil {
		return fail("%w", err)
	}
	fg, parts, err := f.Select(uniq...).Graph()
	if err != nil {
		return fail("%w", err)
	}
	ks := make([]string, len(parts))
	for i, k := range parts {
		ks[i] = string(k)
	}

	// Run f once: rows per partition, and nulls in int64 columns when an
	// int64 array is still possible.
	g := graph.New()
	g.Merge(fg)
	rowsName := graph.Name("array-frame-rows", opFrameRows, nil, ks...)
	var countKeys []graph.Key
	for i, k := range parts {
		countKeys = append(countKeys, graph.Part(rowsName, i))
		g.Add(&graph.Task{Key: countKeys[i], Op: opFrameRows, Inputs: []graph.Key{k}})
	}
	if allInt {
		nargs := mustJSON(intCols)
		nullsName := graph.Name("array-frame-int-nulls", opFrameIntNulls, nargs, ks...)
		for i, k := range parts {
			nk := graph.Part(nullsName, i)
			g.Add(&graph.Task{Key: nk, Op: opFrameIntNulls, Args: nargs, Inputs: []graph.Key{k}})
			countKeys = append(countKeys, nk)
		}
	}
	values, err := ex.Compute(ctx, g, countKeys)
	runtime.KeepAlive(f)
	if err != nil {
		return fail("count rows: %w", err)
	}
	counts := make([]int64, len(values))
	for i, v := range values {
		n, ok := v.(int64)
		if !ok {
			return fail("count rows: got a %T, not an int64", v)
		}
		counts[i] = n
	}
	dt := Float64
	if allInt {
		dt = Int64
		for _, n := range counts[len(parts):] {
			if n > 0 {
				dt = Float64
			}
		}
	}

	// One chunk per non-empty partition, or the first when all are empty.
	var keep []int
	var rowChunks []int
	total := 0
	for i, n := range counts[:len(parts)] {
		if n > 0 {
			keep = append(keep, i)
			rowChunks = append(rowChunks, int(n))
			total += int(n)
		}
	}
	if len(keep) == 0 {
		keep, rowChunks = []int{0}, []int{0}
	}
	a := &Array{dtype: dt}
	if oneD {
		a.shape, a.chunks = []int{total}, [][]int{rowChunks}
	} else {
		a.shape, a.chunks = []int{total, len(cols)}, [][]int{rowChunks, {len(cols)}}
	}
	args := make([][]byte, len(keep))
	inputs := make([]string, len(keep))
	for j, p := range keep {
		args[j] = mustJSON(fromFrameArgs{Cols: cols, DType: dt, Rows: rowChunks[j], OneD: oneD})
		inputs[j] = ks[p]
	}
	tok := graph.Name("array-from-frame", opFromFrame, mustJSON(a.chunks), append(inputs, string(mustJSON(cols)), dt.String())...)
	a.n = &node{tok: tok, keep: f, lower: func(l *lowering) []graph.Key {
		l.g.Merge(fg)
		keys := make([]graph.Key, len(keep))
		for j, p := range keep {
			keys[j] = l.add(graph.Part(tok, j), opFromFrame, args[j], parts[p])
		}
		return keys
	}}
	return a
}

func partition(rc *registry.Context, op string, inputs []any) (arrow.Record, error) {
	rec, ok := inputs[0].(arrow.Record)
	if !ok {
		return nil, fmt.Errorf("%s %s: input is a %T, not a dataframe partition", op, rc.Key, inputs[0])
	}
	return rec, nil
}

func frameRowsOp(rc *registry.Context, _ []byte, inputs []any) (any, error) {
	rec, err := partition(rc, opFrameRows, inputs)
	if err != nil {
		return nil, err
	}
	return rec.NumRows(), nil
}

// frameIntNullsOp counts the nulls in a partition's named int64 columns.
func frameIntNullsOp(rc *registry.Context, raw []byte, inputs []any) (any, error) {
	rec, err := partition(rc, opFrameIntNulls, inputs)
	if err != nil {
		return nil, err
	}
	var cols []string
	if err := json.Unmarshal(raw, &cols); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opFrameIntNulls, err)
	}
	var n int64
	for _, c := range cols {
		col, err := column(rec, c)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", opFrameIntNulls, rc.Key, err)
		}
		n += int64(col.NullN())
	}
	return n, nil
}

func column(rec arrow.Record, name string) (arrow.Array, error) {
	idx := rec.Schema().FieldIndices(name)
	if len(idx) == 0 {
		return nil, fmt.Errorf("partition has no column %q", name)
	}
	return rec.Column(idx[0]), nil
}

// fromFrameOp makes one row-chunk from a partition: its columns side by
// side, row-major, nulls as NaN.
func fromFrameOp(rc *registry.Context, raw []byte, inputs []any) (any, error) {
	rec, err := partition(rc, opFromFrame, inputs)
	if err != nil {
		return nil, err
	}
	var a fromFrameArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opFromFrame, err)
	}
	rows, ncols := int(rec.NumRows()), len(a.Cols)
	if rows != a.Rows {
		return nil, fmt.Errorf("%s %s: the partition has %d rows, %d when counted: the frame must give the same rows each time it runs",
			opFromFrame, rc.Key, rows, a.Rows)
	}
	shape := []int{rows, ncols}
	if a.OneD {
		shape = []int{rows}
	}
	out := newDense(a.DType, shape)
	for j, c := range a.Cols {
		col, err := column(rec, c)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", opFromFrame, rc.Key, err)
		}
		switch v := col.(type) {
		case *arrowarray.Int64:
			for i := range rows {
				switch {
				case a.DType == Int64:
					out.I[i*ncols+j] = v.Value(i)
				case v.IsNull(i):
					out.F[i*ncols+j] = math.NaN()
				default:
					out.F[i*ncols+j] = float64(v.Value(i))
				}
			}
		case *arrowarray.Float64:
			if a.DType != Float64 {
				return nil, fmt.Errorf("%s %s: column %q is float64 in an int64 array", opFromFrame, rc.Key, c)
			}
			for i := range rows {
				if v.IsNull(i) {
					out.F[i*ncols+j] = math.NaN()
				} else {
					out.F[i*ncols+j] = v.Value(i)
				}
			}
		case *arrowarray.Null:
			if a.DType != Float64 {
				return nil, fmt.Errorf("%s %s: column %q is null in an int64 array", opFromFrame, rc.Key, c)
			}
			for i := range rows {
				out.F[i*ncols+j] = math.NaN()
			}
		default:
			return nil, fmt.Errorf("%s %s: column %q has type %s, not int64 or float64", opFromFrame, rc.Key, c, col.DataType())
		}
	}
	return out, nil
}

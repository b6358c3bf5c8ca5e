package ops

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

const (
	OpFromIPC       = "df-from-ipc"
	OpSelect        = "df-select"
	OpFilter        = "df-filter"
	OpWithColumn    = "df-with-column"
	OpHead          = "df-head"
	OpSkip          = "df-skip"
	OpLen           = "df-len"
	OpSumInts       = "df-sum-ints"
	OpMapPartitions = "df-map-partitions"
)

type SelectArgs struct {
	Columns []string `json:"columns"`
}

type ExprArgs struct {
	Name string     `json:"name,omitempty"`
	Expr *expr.Node `json:"expr"`
}

// FilterArgs is a filter's predicate and the columns it keeps (nil: all).
type FilterArgs struct {
	Expr *expr.Node `json:"expr"`
	Keep []string   `json:"keep,omitempty"`
}

type HeadArgs struct {
	N int `json:"n"`
}

// SkipArgs drops the frame's first N rows; each partition's task also
// reads how many rows the partitions before it hold.
type SkipArgs struct {
	N int64 `json:"n"`
}

func init() {
	registry.Register(OpFromIPC, fromIPCOp)
	registry.Register(OpSelect, RecordOp(OpSelect, selectOp))
	registry.RegisterReads(OpSelect, func(raw []byte) ([]string, error) {
		var a SelectArgs
		err := json.Unmarshal(raw, &a)
		return a.Columns, err
	})
	registry.RegisterGPU(OpFilter, ContextRecordOp(OpFilter, filterOp))
	registry.RegisterGPU(OpWithColumn, ContextRecordOp(OpWithColumn, withColumnOp))
	registry.Register(OpHead, RecordOp(OpHead, headOp))
	registry.Register(OpSkip, skipOp)
	registry.Register(OpLen, lenOp)
	registry.Register(OpSumInts, sumIntsOp)
	registry.Register(OpMapPartitions, mapPartitionsOp)
}

// RecordOp adapts an operation on one record, with its JSON arguments, and
// names the operation in its errors.
func RecordOp[A any](name string, fn func(args *A, rec arrow.Record) (arrow.Record, error)) registry.Op {
	return ContextRecordOp(name, func(_ *registry.Context, args *A, rec arrow.Record) (arrow.Record, error) {
		return fn(args, rec)
	})
}

// ContextRecordOp is recordOp for an operation that reads the task's
// context (whether it holds a GPU).
func ContextRecordOp[A any](name string, fn func(tc *registry.Context, args *A, rec arrow.Record) (arrow.Record, error)) registry.Op {
	return func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
		args := new(A)
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, args); err != nil {
				return nil, fmt.Errorf("%s: decode arguments: %w", name, err)
			}
		}
		rec, ok := inputs[0].(arrow.Record)
		if !ok {
			return nil, fmt.Errorf("%s: input is a %T, not a dataframe partition", name, inputs[0])
		}
		out, err := fn(tc, args, rec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return out, nil
	}
}

func selectOp(a *SelectArgs, rec arrow.Record) (arrow.Record, error) {
	cols := make([]arrow.Array, len(a.Columns))
	fields := make([]arrow.Field, len(a.Columns))
	for i, name := range a.Columns {
		j, err := expr.ColumnIndex(rec.Schema(), name)
		if err != nil {
			return nil, err
		}
		cols[i], fields[i] = rec.Column(j), rec.Schema().Field(j)
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

func filterOp(tc *registry.Context, a *FilterArgs, rec arrow.Record) (arrow.Record, error) {
	v, err := a.Expr.Eval(rec, Accelerator(tc))
	if err != nil {
		return nil, err
	}
	if a.Keep != nil {
		if rec, err = selectOp(&SelectArgs{Columns: a.Keep}, rec); err != nil {
			return nil, err
		}
		defer rec.Release()
	}
	return kernel.Filter(rec, v.AsMask(int(rec.NumRows())).Selected()), nil
}

func withColumnOp(tc *registry.Context, a *ExprArgs, rec arrow.Record) (arrow.Record, error) {
	col, err := a.Expr.EvalColumn(rec, Accelerator(tc))
	if err != nil {
		return nil, err
	}
	defer col.Release()
	fields := append([]arrow.Field(nil), rec.Schema().Fields()...)
	cols := append([]arrow.Array(nil), rec.Columns()...)
	f := arrow.Field{Name: a.Name, Type: col.DataType(), Nullable: true}
	if i := rec.Schema().FieldIndices(a.Name); len(i) > 0 {
		fields[i[0]], cols[i[0]] = f, col
	} else {
		fields, cols = append(fields, f), append(cols, col)
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

func headOp(a *HeadArgs, rec arrow.Record) (arrow.Record, error) {
	if int64(a.N) >= rec.NumRows() {
		rec.Retain()
		return rec, nil
	}
	return rec.NewSlice(0, int64(a.N)), nil
}

// skipOp drops what remains of the first a.N rows from its partition,
// given the rows before it (the sum of its int64 inputs after the first).
func skipOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a SkipArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpSkip, err)
	}
	rec, ok := inputs[0].(arrow.Record)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, not a dataframe partition", OpSkip, inputs[0])
	}
	before, err := sumIntsOp(nil, nil, inputs[1:])
	if err != nil {
		return nil, err
	}
	drop := min(max(a.N-before.(int64), 0), rec.NumRows())
	return rec.NewSlice(drop, rec.NumRows()), nil
}

func lenOp(_ *registry.Context, _ []byte, inputs []any) (any, error) {
	rec, ok := inputs[0].(arrow.Record)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, not a dataframe partition", OpLen, inputs[0])
	}
	return rec.NumRows(), nil
}

func sumIntsOp(_ *registry.Context, _ []byte, inputs []any) (any, error) {
	var total int64
	for _, v := range inputs {
		n, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("%s: input is a %T, not an int64", OpSumInts, v)
		}
		total += n
	}
	return total, nil
}

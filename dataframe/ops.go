package dataframe

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// The operations dataframe tasks run, registered under these names.
const (
	opFromIPC    = "df-from-ipc"
	opSelect     = "df-select"
	opFilter     = "df-filter"
	opWithColumn = "df-with-column"
	opAggPartial = "df-agg-partial"
	opAggCombine = "df-agg-combine"
	opAggFinal   = "df-agg-final"
	opHead       = "df-head"
	opLen        = "df-len"
	opSumInts    = "df-sum-ints"

	opConcat        = "df-concat"
	opHashSplit     = "df-hash-split"
	opDedup         = "df-dedup"
	opSlices        = "df-slices"
	opNbytes        = "df-nbytes"
	opAggUnpack     = "df-agg-unpack"
	opGroupRows     = "df-group-rows"
	opJoin          = "df-join"
	opJoinBuild     = "df-join-build"
	opJoinRead      = "df-join-read"
	opJoinScan      = "df-join-scan"
	opJoinMarks     = "df-join-marks"
	opJoinMarked    = "df-join-marked"
	opMapPartitions = "df-map-partitions"
	opSample        = "df-sort-sample"
	opBounds        = "df-sort-bounds"
	opRangeSplit    = "df-range-split"
	opSortRows      = "df-sort-rows"
	opLoc           = "df-loc"
	opTop           = "df-top"
)

type selectArgs struct {
	Columns []string `json:"columns"`
}

type exprArgs struct {
	Name string     `json:"name,omitempty"`
	Expr *expr.Node `json:"expr"`
}

type headArgs struct {
	N int `json:"n"`
}

func init() {
	registry.Register(opFromIPC, fromIPCOp)
	registry.Register(opSelect, recordOp(opSelect, selectOp))
	registry.RegisterReads(opSelect, func(raw []byte) ([]string, error) {
		var a selectArgs
		err := json.Unmarshal(raw, &a)
		return a.Columns, err
	})
	registry.RegisterGPU(opFilter, contextRecordOp(opFilter, filterOp))
	registry.RegisterGPU(opWithColumn, contextRecordOp(opWithColumn, withColumnOp))
	registry.RegisterGPU(opAggPartial, contextRecordOp(opAggPartial, aggPartialOp))
	registry.Register(opAggCombine, aggCombineOp)
	registry.Register(opAggFinal, recordOp(opAggFinal, aggFinalOp))
	registry.Register(opHead, recordOp(opHead, headOp))
	registry.Register(opLen, lenOp)
	registry.Register(opSumInts, sumIntsOp)
	for name, op := range map[string]registry.Op{
		opConcat: concatOp, opHashSplit: hashSplitOp, opDedup: dedupOp, opSlices: slicesOp,
		opNbytes: nbytesOp, opAggUnpack: aggUnpackOp, opGroupRows: groupRowsOp, opJoin: joinOp, opJoinBuild: joinBuildOp, opJoinRead: joinReadOp, opJoinScan: joinScanOp,
		opJoinMarks: joinMarksOp, opJoinMarked: joinMarkedOp,
		opMapPartitions: mapPartitionsOp, opSample: sampleOp, opBounds: boundsOp,
		opRangeSplit: rangeSplitOp, opSortRows: sortRowsOp, opLoc: locOp, opTop: topOp,
	} {
		registry.Register(name, op)
	}
}

// recordOp adapts an operation on one record, with its JSON arguments, and
// names the operation in its errors.
func recordOp[A any](name string, fn func(args *A, rec arrow.Record) (arrow.Record, error)) registry.Op {
	return contextRecordOp(name, func(_ *registry.Context, args *A, rec arrow.Record) (arrow.Record, error) {
		return fn(args, rec)
	})
}

// contextRecordOp is recordOp for an operation that reads the task's
// context (whether it holds a GPU).
func contextRecordOp[A any](name string, fn func(tc *registry.Context, args *A, rec arrow.Record) (arrow.Record, error)) registry.Op {
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

func selectOp(a *selectArgs, rec arrow.Record) (arrow.Record, error) {
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

func filterOp(tc *registry.Context, a *exprArgs, rec arrow.Record) (arrow.Record, error) {
	v, err := a.Expr.Eval(rec, accelerator(tc))
	if err != nil {
		return nil, err
	}
	return kernel.Filter(rec, v.AsMask(int(rec.NumRows())).Selected()), nil
}

func withColumnOp(tc *registry.Context, a *exprArgs, rec arrow.Record) (arrow.Record, error) {
	col, err := a.Expr.EvalColumn(rec, accelerator(tc))
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

func headOp(a *headArgs, rec arrow.Record) (arrow.Record, error) {
	if int64(a.N) >= rec.NumRows() {
		rec.Retain()
		return rec, nil
	}
	return rec.NewSlice(0, int64(a.N)), nil
}

func lenOp(_ *registry.Context, _ []byte, inputs []any) (any, error) {
	rec, ok := inputs[0].(arrow.Record)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, not a dataframe partition", opLen, inputs[0])
	}
	return rec.NumRows(), nil
}

func sumIntsOp(_ *registry.Context, _ []byte, inputs []any) (any, error) {
	var total int64
	for _, v := range inputs {
		n, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("%s: input is a %T, not an int64", opSumInts, v)
		}
		total += n
	}
	return total, nil
}

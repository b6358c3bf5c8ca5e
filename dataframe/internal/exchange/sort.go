package exchange

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

type SortArgs struct {
	By  []string      `json:"by"`
	Asc []bool        `json:"asc"`
	Out []ops.ColSpec `json:"out,omitempty"`
	N   int           `json:"n,omitempty"` // output partitions
}

// samplesPerPartition is how many values of the first sort column each
// partition contributes to the boundaries.
const samplesPerPartition = 256

func SampleOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a SortArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpSample, err)
	}
	rec, err := ops.RecordIn(OpSample, inputs[0])
	if err != nil {
		return nil, err
	}
	j, err := expr.ColumnIndex(rec.Schema(), a.By[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpSample, err)
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

type BoundsArgs struct {
	N   int           `json:"n"`
	Col string        `json:"col"`
	Out []ops.ColSpec `json:"out"`
}

// BoundsOp picks n-1 boundaries from the samples: their quantiles.
func BoundsOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a BoundsArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpBounds, err)
	}
	s := ops.SchemaOf(a.Out)
	typ := s.Field(s.FieldIndices(a.Col)[0]).Type
	parts := make([]arrow.Array, len(inputs))
	for i, v := range inputs {
		rec, err := ops.RecordIn(OpBounds, v)
		if err != nil {
			return nil, err
		}
		parts[i] = rec.Column(0)
	}
	all, err := kernel.Concat(typ, parts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpBounds, err)
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

// RangeSplitOp splits a partition by the boundaries of its first sort column.
func RangeSplitOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a SortArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpRangeSplit, err)
	}
	rec, err := ops.RecordIn(OpRangeSplit, inputs[0])
	if err != nil {
		return nil, err
	}
	bounds, err := ops.RecordIn(OpRangeSplit, inputs[1])
	if err != nil {
		return nil, err
	}
	j, err := expr.ColumnIndex(rec.Schema(), a.By[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpRangeSplit, err)
	}
	parts := kernel.RangePartition(rec.Column(j), bounds.Column(0), a.Asc[0], nil)
	return splitOf(rec, parts, a.N, nil, nil), nil
}

// SortRowsOp sorts the rows gathered in one partition.
func SortRowsOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a SortArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpSortRows, err)
	}
	rec, err := Gathered(OpSortRows, tc, inputs, 0, a.Out)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	keys, _, err := KeyColumns(rec, a.By)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpSortRows, err)
	}
	return kernel.TakeRecord(rec, kernel.SortIndices(keys, a.Asc)), nil
}

type LocArgs struct {
	Col string        `json:"col"`
	Lo  *expr.Literal `json:"lo,omitempty"`
	Hi  *expr.Literal `json:"hi,omitempty"`
}

func LocOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a LocArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpLoc, err)
	}
	rec, err := ops.RecordIn(OpLoc, inputs[0])
	if err != nil {
		return nil, err
	}
	j, err := expr.ColumnIndex(rec.Schema(), a.Col)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpLoc, err)
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

type TopArgs struct {
	By  []string      `json:"by"`
	Asc []bool        `json:"asc"`
	K   int           `json:"k"`
	Out []ops.ColSpec `json:"out,omitempty"`
}

func TopOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a TopArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpTop, err)
	}
	rec, err := ConcatOp(nil, ops.MustJSON(ops.ConcatArgs{Out: a.Out}), inputs)
	if err != nil {
		return nil, err
	}
	r := rec.(arrow.Record)
	defer r.Release()
	keys, _, err := KeyColumns(r, a.By)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpTop, err)
	}
	return kernel.TakeRecord(r, kernel.TopN(keys, a.Asc, a.K)), nil
}

const (
	OpLimit = "df-limit"
)

type LimitArgs struct {
	N    int           `json:"n"`
	Last bool          `json:"last,omitempty"`
	Out  []ops.ColSpec `json:"out"`
}

// LimitOp concatenates its inputs in order and keeps the first (or last) n
// rows.
func LimitOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a LimitArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpLimit, err)
	}
	rec, err := ConcatOp(nil, ops.MustJSON(ops.ConcatArgs{Out: a.Out}), inputs)
	if err != nil {
		return nil, err
	}
	r := rec.(arrow.Record)
	defer r.Release()
	if a.Last {
		return ops.TailOf(r, a.N), nil
	}
	r.Retain()
	if int64(a.N) < r.NumRows() {
		defer r.Release()
		return r.NewSlice(0, int64(a.N)), nil
	}
	return r, nil
}

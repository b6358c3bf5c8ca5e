package ops

import (
	"fmt"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/cespare/xxhash/v2"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

const (
	OpRename  = "df-rename"
	OpAlign   = "df-align"
	OpTail    = "df-tail"
	OpSampleN = "df-sample-rows"
)

func init() {
	registry.Register(OpRename, RecordOp(OpRename, renameOp))
	registry.Register(OpAlign, RecordOp(OpAlign, alignOp))
	registry.Register(OpTail, RecordOp(OpTail, func(a *HeadArgs, rec arrow.Record) (arrow.Record, error) {
		return TailOf(rec, a.N), nil
	}))
	registry.Register(OpSampleN, ContextRecordOp(OpSampleN, sampleRowsOp))
}

type RenameArgs struct {
	Names [][2]string `json:"names"` // old, new; sorted by old
}

func renameOp(a *RenameArgs, rec arrow.Record) (arrow.Record, error) {
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

type SampleArgs struct {
	Fraction float64 `json:"fraction"`
	Seed     uint64  `json:"seed"`
}

// sampleRowsOp keeps a row where a hash of the seed, the partition's task
// key and the row's number falls under the fraction.
func sampleRowsOp(tc *registry.Context, a *SampleArgs, rec arrow.Record) (arrow.Record, error) {
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

// TailOf is rec's last n rows, retained.
func TailOf(rec arrow.Record, n int) arrow.Record {
	rows := rec.NumRows()
	if int64(n) >= rows {
		rec.Retain()
		return rec
	}
	return rec.NewSlice(rows-int64(n), rows)
}

// alignOp gives a partition the stacked schema: columns in its order, cast
// to its types, nulls for those the partition lacks.
func alignOp(a *ConcatArgs, rec arrow.Record) (arrow.Record, error) {
	out := SchemaOf(a.Out)
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

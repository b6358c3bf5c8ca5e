package bench

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/kernel"
)

// checksumFunc is the registered partition function that sums an answer's
// measure columns where the answer lies, so that a checksum moves one row a
// partition to the client rather than the answer.
const checksumFunc = "bench.checksum"

func init() {
	dataframe.RegisterFunc(checksumFunc, func(rec arrow.Record) (arrow.Record, error) {
		schema := measureSchema(rec.Schema())
		cols := make([]arrow.Array, 0, schema.NumFields())
		for _, f := range schema.Fields() {
			i := rec.Schema().FieldIndices(f.Name)[0]
			cols = append(cols, kernel.NewFloat64([]float64{columnSum(rec.Column(i))}, nil))
		}
		out := array.NewRecord(schema, cols, 1)
		for _, c := range cols {
			c.Release()
		}
		return out, nil
	})
}

// isMeasure reports whether a column of an answer goes into its checksum:
// db-benchmark sums the measure columns (v1, mean v3, median_v3, r2,
// count…), never the id keys.
func isMeasure(f arrow.Field) bool {
	id := f.Type.ID()
	return !strings.HasPrefix(f.Name, "id") && (arrow.IsInteger(id) || arrow.IsFloating(id))
}

// measureSchema has a float64 column for each measure column of s.
func measureSchema(s *arrow.Schema) *arrow.Schema {
	var fields []arrow.Field
	for _, f := range s.Fields() {
		if isMeasure(f) {
			fields = append(fields, arrow.Field{Name: f.Name, Type: arrow.PrimitiveTypes.Float64})
		}
	}
	return arrow.NewSchema(fields, nil)
}

// columnSum adds up a numeric column, leaving out nulls and NaNs.
func columnSum(col arrow.Array) float64 {
	var s float64
	switch c := col.(type) {
	case *array.Int64:
		for i, v := range c.Int64Values() {
			if c.IsValid(i) {
				s += float64(v)
			}
		}
	case *array.Float64:
		for i, v := range c.Float64Values() {
			if c.IsValid(i) && !math.IsNaN(v) {
				s += v
			}
		}
	default:
		for i := range col.Len() {
			if v, err := arrowValue(col, i); err == nil {
				switch v := v.(type) {
				case int64:
					s += float64(v)
				case float64:
					if !math.IsNaN(v) {
						s += v
					}
				}
			}
		}
	}
	return s
}

// Checksum computes db-benchmark's checksum of an answer on the cluster:
// the sum of each measure column, in column order.
func Checksum(ctx context.Context, f *dataframe.Frame) ([]float64, error) {
	schema := measureSchema(f.Schema())
	sums := make([]float64, schema.NumFields())
	if len(sums) == 0 {
		return sums, nil
	}
	tb, err := f.MapPartitions(checksumFunc, schema).Compute(ctx)
	if err != nil {
		return nil, fmt.Errorf("checksum: %w", err)
	}
	defer tb.Release()
	rec := tb.Record()
	for i := range sums {
		sums[i] = columnSum(rec.Column(i))
	}
	return sums, nil
}

// Checksum is db-benchmark's checksum of a reference answer, as Checksum
// computes it of a frame.
func (a Answer) Checksum() []float64 {
	sums := []float64{}
	for c, name := range a.Columns {
		if strings.HasPrefix(name, "id") {
			continue
		}
		numeric := false
		var s float64
		for _, row := range a.Rows {
			switch v := row[c].(type) {
			case int64:
				numeric = true
				s += float64(v)
			case float64:
				numeric = true
				if !math.IsNaN(v) {
					s += v
				}
			}
		}
		if numeric {
			sums = append(sums, s)
		}
	}
	return sums
}

// orderFunc is the registered partition function that describes how one
// partition of a frame sorted on its first column is ordered: one row of
// its first and last values of that column (as float64) and how many
// neighbouring rows are out of order, so that checking a sort moves a row
// a partition to the client.
const orderFunc = "bench.order"

var orderSchema = arrow.NewSchema([]arrow.Field{
	{Name: "rows", Type: arrow.PrimitiveTypes.Int64},
	{Name: "first", Type: arrow.PrimitiveTypes.Float64},
	{Name: "last", Type: arrow.PrimitiveTypes.Float64},
	{Name: "unordered", Type: arrow.PrimitiveTypes.Int64},
}, nil)

func init() {
	dataframe.RegisterFunc(orderFunc, func(rec arrow.Record) (arrow.Record, error) {
		vals, err := floats(rec.Column(0))
		if err != nil {
			return nil, fmt.Errorf("%s: column %s: %w", orderFunc, rec.ColumnName(0), err)
		}
		var first, last float64
		var unordered int64
		if len(vals) > 0 {
			first, last = vals[0], vals[len(vals)-1]
		}
		for i := 1; i < len(vals); i++ {
			if vals[i] < vals[i-1] {
				unordered++
			}
		}
		cols := []arrow.Array{
			kernel.NewInt64([]int64{int64(len(vals))}, nil),
			kernel.NewFloat64([]float64{first}, nil),
			kernel.NewFloat64([]float64{last}, nil),
			kernel.NewInt64([]int64{unordered}, nil),
		}
		out := array.NewRecord(orderSchema, cols, 1)
		for _, c := range cols {
			c.Release()
		}
		return out, nil
	})
}

// floats reads a numeric column without nulls as float64s.
func floats(col arrow.Array) ([]float64, error) {
	if col.NullN() > 0 {
		return nil, fmt.Errorf("%d nulls", col.NullN())
	}
	out := make([]float64, col.Len())
	switch c := col.(type) {
	case *array.Float64:
		copy(out, c.Float64Values())
	case *array.Int64:
		for i, v := range c.Int64Values() {
			out[i] = float64(v)
		}
	default:
		return nil, fmt.Errorf("type %s is not float64 or int64", col.DataType())
	}
	return out, nil
}

// CheckOrder checks that f, in the order of its partitions, is sorted
// ascending on its first column, and names the first place it is not.
func CheckOrder(ctx context.Context, f *dataframe.Frame) error {
	tb, err := f.MapPartitions(orderFunc, orderSchema).Compute(ctx)
	if err != nil {
		return fmt.Errorf("check order: %w", err)
	}
	defer tb.Release()
	rec := tb.Record()
	rows := rec.Column(0).(*array.Int64).Int64Values()
	first := rec.Column(1).(*array.Float64).Float64Values()
	last := rec.Column(2).(*array.Float64).Float64Values()
	unordered := rec.Column(3).(*array.Int64).Int64Values()
	prev, seen := 0.0, false
	for i := range rows {
		if unordered[i] > 0 {
			return fmt.Errorf("partition %d: %d rows are smaller than the row before them", i, unordered[i])
		}
		if rows[i] == 0 {
			continue
		}
		if seen && first[i] < prev {
			return fmt.Errorf("partition %d starts at %v, below the %v that ends the partitions before it", i, first[i], prev)
		}
		prev, seen = last[i], true
	}
	return nil
}

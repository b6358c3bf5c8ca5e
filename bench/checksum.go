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

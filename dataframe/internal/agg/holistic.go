package agg

import (
	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// holisticAgg describes an aggregation that needs all of a group's rows
// together (the rows are shuffled by the keys first), once: whether it
// takes numbers only, its answer's type from its column's, and its kernel.
type holisticAgg struct {
	Numeric bool
	Result  func(col arrow.DataType) arrow.DataType
	compute func(col arrow.Array, ids []int32, n int, q float64) (arrow.Array, error)
}

// Holistics are the holistic aggregations, by name.
var Holistics = map[string]holisticAgg{
	"median": {Numeric: true, Result: func(arrow.DataType) arrow.DataType { return kernel.Float64 },
		compute: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return kernel.GroupMedian(c, ids, n)
		}},
	"quantile": {Numeric: true, Result: func(arrow.DataType) arrow.DataType { return kernel.Float64 },
		compute: kernel.GroupQuantile},
	"first": {Result: func(t arrow.DataType) arrow.DataType { return t },
		compute: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return kernel.GroupFirst(c, ids, n), nil
		}},
	"last": {Result: func(t arrow.DataType) arrow.DataType { return t },
		compute: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return kernel.GroupLast(c, ids, n), nil
		}},
	"nunique": {Result: func(arrow.DataType) arrow.DataType { return kernel.Int64 },
		compute: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return kernel.GroupNunique(c, ids, n), nil
		}},
}

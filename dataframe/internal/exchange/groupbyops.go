package exchange

// The grouping's tasks: partial states of a partition's groups, their
// combination in a tree or after a shuffle, the final values, and the
// holistic aggregations over a group's rows (see groupby.go for the plan).

import (
	"sync"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
)

func KeyColumns(rec arrow.Record, keys []string) ([]arrow.Array, []arrow.DataType, error) {
	cols := make([]arrow.Array, len(keys))
	types := make([]arrow.DataType, len(keys))
	for i, k := range keys {
		j, err := expr.ColumnIndex(rec.Schema(), k)
		if err != nil {
			return nil, nil, err
		}
		cols[i], types[i] = rec.Column(j), rec.Column(j).DataType()
	}
	return cols, types, nil
}

// IdBuffers recycles buffers of one int32 a row that a task drops as it
// ends: the group ids of partial aggregations, garbage once the partial
// states are made, and the outputs of a split's rows, once scattered.
var IdBuffers = sync.Pool{New: func() any { return new([]int32) }}

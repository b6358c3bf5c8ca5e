package plan

import (
	"github.com/duskdata/dusk/dataframe/internal/ops"

	// The file formats register themselves with io/files.
	_ "github.com/duskdata/dusk/io/avro"
	_ "github.com/duskdata/dusk/io/csv"
	_ "github.com/duskdata/dusk/io/jsonl"
	_ "github.com/duskdata/dusk/io/parquet"
)

// filtersRead reports whether the read step op tests filters as it
// decodes (its format's Filters).
func filtersRead(op string) bool {
	f, err := ops.FormatOf(op)
	return err == nil && f.Filters()
}

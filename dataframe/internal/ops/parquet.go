package ops

import (
	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/files"
)

// StatsRange turns a row group's column statistics into a range.
func StatsRange(t arrow.DataType, st files.ColumnStats) expr.Range {
	r := expr.Range{Nulls: st.Nulls > 0, Paged: st.Paged}
	if !st.HasMinMax {
		r.Nulls = true // unknown
		return r
	}
	switch kernel.PlainType(t).ID() {
	case arrow.INT64, arrow.INT32, arrow.INT16, arrow.INT8, arrow.UINT32, arrow.UINT16, arrow.UINT8:
		r.Min, r.Max = st.MinInt, st.MaxInt
	case arrow.FLOAT64, arrow.FLOAT32:
		r.Min, r.Max = st.MinFloat, st.MaxFloat
	case arrow.STRING:
		r.Min, r.Max = st.MinString, st.MaxString
	case arrow.BOOL:
		r.Min, r.Max = st.MinBool, st.MaxBool
	}
	return r
}

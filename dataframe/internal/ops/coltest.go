package ops

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// ColumnTest is a part of a source's predicate that reads one column: a
// reader that can (Parquet) tests it as it decodes the column, each
// dictionary value once, and builds only the rows that pass of the
// columns it reads (TPC-H's l_shipdate and l_quantity in q6).
type ColumnTest struct {
	Col  string
	pred *expr.Node
	// Sift, in place of pred, is a test made as the task runs (the filter
	// of a broadcast side's join keys, joinScanOp): it clears keep[i] for
	// the rows it fails among those keep holds, as parquet.Filter's Sift.
	Sift func(values arrow.Array, keep []uint8) error
}

// columnTests splits pred into tests of one column each, the conjuncts
// of a column joined, and the rest (nil: none).
func columnTests(pred *expr.Node) ([]ColumnTest, *expr.Node) {
	byCol := map[string]*expr.Node{}
	var order []string
	var rest *expr.Node
	for _, c := range expr.Conjuncts(pred) {
		reads := c.Columns(SetOf{})
		if len(reads) != 1 {
			rest = expr.And(rest, c)
			continue
		}
		for col := range reads {
			if byCol[col] == nil {
				order = append(order, col)
			}
			byCol[col] = expr.And(byCol[col], c)
		}
	}
	tests := make([]ColumnTest, len(order))
	for i, col := range order {
		tests[i] = ColumnTest{Col: col, pred: byCol[col]}
	}
	return tests, rest
}

// sifts clears keep[i] where t fails values[i] among the rows keep holds.
func (t ColumnTest) sifts(values arrow.Array, want arrow.DataType, keep []uint8) error {
	if !kernel.SameType(values.DataType(), want) {
		return fmt.Errorf("column %s is %s, not %s as in the other files", t.Col, kernel.TypeName(values.DataType()), kernel.TypeName(want))
	}
	return t.Sift(values, keep)
}

// passes tests values of t's column, which the source types as want, and
// returns 1 for each that passes (true, not null), else 0.
func (t ColumnTest) passes(values arrow.Array, want arrow.DataType) ([]uint8, error) {
	if !kernel.SameType(values.DataType(), want) {
		return nil, fmt.Errorf("column %s is %s, not %s as in the other files", t.Col, kernel.TypeName(values.DataType()), kernel.TypeName(want))
	}
	if t.Sift != nil {
		keep := make([]uint8, values.Len())
		for i := range keep {
			keep[i] = 1
		}
		return keep, t.Sift(values, keep)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: t.Col, Type: values.DataType(), Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{values}, int64(values.Len()))
	defer rec.Release()
	v, err := t.pred.Eval(rec, nil)
	if err != nil {
		return nil, fmt.Errorf("filter %s: %w", t.pred, err)
	}
	return v.AsMask(values.Len()).Selected(), nil
}

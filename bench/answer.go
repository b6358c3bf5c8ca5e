package bench

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// Answer is a question's result in a form results from different engines
// can be compared in: column names, and rows of int64, float64, string or
// nil (null) values.
type Answer struct {
	Columns []string
	Rows    [][]any
}

// Sort puts a's rows in canonical order: by all columns, left to right;
// nulls first, then numbers by value (NaN first), then strings.
func (a Answer) Sort() {
	if !slices.IsSortedFunc(a.Rows, compareRows) {
		slices.SortFunc(a.Rows, compareRows)
	}
}

func compareRows(x, y []any) int {
	for i := range min(len(x), len(y)) {
		if c := compareValues(x[i], y[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(x), len(y))
}

// rank orders kinds of values: nulls, numbers, strings, anything else.
func rank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case int64, float64:
		return 1
	case string:
		return 2
	}
	return 3
}

func compareValues(x, y any) int {
	switch x := x.(type) { // the common cases first
	case string:
		if y, ok := y.(string); ok {
			return strings.Compare(x, y)
		}
	case int64:
		if y, ok := y.(int64); ok {
			return cmp.Compare(x, y)
		}
	case float64:
		if y, ok := y.(float64); ok {
			return cmp.Compare(x, y)
		}
	}
	if c := cmp.Compare(rank(x), rank(y)); c != 0 {
		return c
	}
	switch rank(x) {
	case 0:
		return 0
	case 1:
		return cmp.Compare(toFloat(x), toFloat(y))
	}
	return strings.Compare(fmt.Sprint(x), fmt.Sprint(y))
}

func toFloat(v any) float64 {
	if i, ok := v.(int64); ok {
		return float64(i)
	}
	return v.(float64)
}

// Equal returns nil when a, the answer under test, has b's columns and,
// both sorted, b's rows; otherwise an error that names the first
// difference. Numbers match when they differ by at most tol times the
// larger magnitude (tol itself below magnitude 1), NaN matches NaN, and an
// int64 matches a float64 of the same value. Neither answer is changed.
func (a Answer) Equal(b Answer, tol float64) error {
	if !slices.Equal(a.Columns, b.Columns) {
		return fmt.Errorf("columns %v, want %v", a.Columns, b.Columns)
	}
	x, y := sorted(a.Rows), sorted(b.Rows)
	counts := ""
	if len(x) != len(y) {
		counts = fmt.Sprintf("%d rows, want %d; ", len(x), len(y))
	}
	for r := range min(len(x), len(y)) {
		if len(x[r]) != len(a.Columns) || len(y[r]) != len(a.Columns) {
			return fmt.Errorf("%srow %d: %d values, want %d, for %d columns", counts, r, len(x[r]), len(y[r]), len(a.Columns))
		}
		for c := range x[r] {
			if !sameValue(x[r][c], y[r][c], tol) {
				return fmt.Errorf("%srow %d %v: %s = %v, want %v (want row %v)", counts, r, x[r], a.Columns[c], x[r][c], y[r][c], y[r])
			}
		}
	}
	switch {
	case len(x) > len(y):
		return fmt.Errorf("%sfirst extra row %v", counts, x[len(y)])
	case len(x) < len(y):
		return fmt.Errorf("%sfirst missing row %v", counts, y[len(x)])
	}
	return nil
}

// sorted returns rows in canonical order, sorting a copy if need be.
func sorted(rows [][]any) [][]any {
	if slices.IsSortedFunc(rows, compareRows) {
		return rows
	}
	rows = slices.Clone(rows)
	slices.SortFunc(rows, compareRows)
	return rows
}

func sameValue(x, y any, tol float64) bool {
	if rank(x) == 1 && rank(y) == 1 {
		if xi, ok := x.(int64); ok {
			if yi, ok := y.(int64); ok {
				return xi == yi
			}
		}
		f, g := toFloat(x), toFloat(y)
		if math.IsNaN(f) || math.IsNaN(g) {
			return math.IsNaN(f) && math.IsNaN(g)
		}
		return f == g || math.Abs(f-g) <= tol*max(math.Abs(f), math.Abs(g), 1)
	}
	return compareValues(x, y) == 0
}

// AnswerFromRecords reads records, all of one schema, into an Answer,
// sorted: integers as int64, floats as float64, strings (plain, large or
// dictionary-encoded) as string and nulls as nil. It returns an error for
// other column types.
func AnswerFromRecords(recs []arrow.Record) (Answer, error) {
	var a Answer
	if len(recs) == 0 {
		return a, nil
	}
	schema := recs[0].Schema()
	for _, f := range schema.Fields() {
		a.Columns = append(a.Columns, f.Name)
	}
	for ri, rec := range recs {
		if !rec.Schema().Equal(schema) {
			return Answer{}, fmt.Errorf("record %d has schema %s, record 0 %s", ri, rec.Schema(), schema)
		}
		base := len(a.Rows)
		for range rec.NumRows() {
			a.Rows = append(a.Rows, make([]any, rec.NumCols()))
		}
		for c, col := range rec.Columns() {
			for i := range col.Len() {
				v, err := arrowValue(col, i)
				if err != nil {
					return Answer{}, fmt.Errorf("record %d column %s: %w", ri, a.Columns[c], err)
				}
				a.Rows[base+i][c] = v
			}
		}
	}
	a.Sort()
	return a, nil
}

// arrowValue returns row i of col as an Answer value.
func arrowValue(col arrow.Array, i int) (any, error) {
	if col.IsNull(i) {
		return nil, nil
	}
	switch c := col.(type) {
	case *array.Int64:
		return c.Value(i), nil
	case *array.Int32:
		return int64(c.Value(i)), nil
	case *array.Int16:
		return int64(c.Value(i)), nil
	case *array.Int8:
		return int64(c.Value(i)), nil
	case *array.Uint32:
		return int64(c.Value(i)), nil
	case *array.Uint16:
		return int64(c.Value(i)), nil
	case *array.Uint8:
		return int64(c.Value(i)), nil
	case *array.Uint64:
		if v := c.Value(i); v <= math.MaxInt64 {
			return int64(v), nil
		}
		return float64(c.Value(i)), nil
	case *array.Float64:
		return c.Value(i), nil
	case *array.Float32:
		return float64(c.Value(i)), nil
	case *array.String:
		return c.Value(i), nil
	case *array.LargeString:
		return c.Value(i), nil
	case *array.Dictionary:
		return arrowValue(c.Dictionary(), c.GetValueIndex(i))
	}
	return nil, fmt.Errorf("type %s is not an Answer value", col.DataType())
}

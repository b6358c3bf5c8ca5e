package difftest

import (
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// A cell is a value in the form both engines' answers are compared in:
// nil, bool, float64 (every number), or string (strings, and dates as
// 2006-01-02).

func dayString(d int64) string { return time.Unix(d*86400, 0).UTC().Format("2006-01-02") }

// duskRows reads a Dusk answer as rows of cells.
func duskRows(rec arrow.Record) ([][]any, error) {
	rows := make([][]any, rec.NumRows())
	for i := range rows {
		rows[i] = make([]any, rec.NumCols())
	}
	for c, a := range rec.Columns() {
		for i := range rows {
			if a.IsNull(i) {
				continue
			}
			var v any
			switch a := a.(type) {
			case *array.Int64:
				v = float64(a.Value(i))
			case *array.Int32:
				v = float64(a.Value(i))
			case *array.Int8:
				v = float64(a.Value(i))
			case *array.Uint16:
				v = float64(a.Value(i))
			case *array.Int16:
				v = float64(a.Value(i))
			case *array.Uint8:
				v = float64(a.Value(i))
			case *array.Uint32:
				v = float64(a.Value(i))
			case *array.Uint64:
				v = unsigned(a.Value(i))
			case *array.Timestamp:
				v = instant(a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit))
			case *array.Float64:
				v = a.Value(i)
			case *array.String:
				v = a.Value(i)
			case *array.Boolean:
				v = a.Value(i)
			case *array.Date32:
				v = dayString(int64(a.Value(i)))
			case *array.Duration: // as microseconds, as the SQL has them
				unit := a.DataType().(*arrow.DurationType).Unit
				v = float64(time.Duration(a.Value(i))*unit.Multiplier()) / 1e3
			case *array.Decimal128:
				scale := a.DataType().(*arrow.Decimal128Type).Scale
				v = a.Value(i).ToFloat64(scale)
			case *array.Dictionary:
				v = a.Dictionary().(*array.String).Value(a.GetValueIndex(i))
			default:
				return nil, fmt.Errorf("column %s: Dusk answered with a %s, which the comparison does not read", rec.ColumnName(c), a.DataType())
			}
			rows[i][c] = v
		}
	}
	return rows, nil
}

// instant is a timestamp's cell: its instant (or a naive one's wall
// clock) in UTC, to the microsecond.
func instant(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// duckRows reads a DuckDB answer as rows of cells.
func duckRows(rs *sql.Rows) ([][]any, error) {
	cols, err := rs.ColumnTypes()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			switch x := v.(type) {
			case int8:
				vals[i] = float64(x)
			case int16:
				vals[i] = float64(x)
			case int32:
				vals[i] = float64(x)
			case int64:
				vals[i] = float64(x)
			case uint64:
				vals[i] = unsigned(x)
			case *big.Int:
				f, _ := new(big.Float).SetInt(x).Float64()
				vals[i] = f
			case duckdb.Decimal:
				f, _ := new(big.Float).Quo(new(big.Float).SetInt(x.Value), new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))).Float64()
				vals[i] = f
			case time.Time:
				if cols[i].DatabaseTypeName() == "DATE" {
					vals[i] = x.UTC().Format("2006-01-02")
				} else {
					vals[i] = instant(x)
				}
			case uint8:
				vals[i] = float64(x)
			case uint16:
				vals[i] = float64(x)
			case uint32:
				vals[i] = float64(x)
			case float32:
				vals[i] = float64(x)
			}
		}
		out = append(out, vals)
	}
	return out, rs.Err()
}

// sameCell compares two cells: numbers within a relative 1e-9 (sums add
// in different orders), NaN equal to NaN, -0 equal to 0.
func sameCell(a, b any) bool {
	fa, okA := a.(float64)
	fb, okB := b.(float64)
	if okA && okB {
		switch {
		case math.IsNaN(fa) || math.IsNaN(fb):
			return math.IsNaN(fa) && math.IsNaN(fb)
		case math.IsInf(fa, 0) || math.IsInf(fb, 0):
			return fa == fb
		}
		return math.Abs(fa-fb) <= 1e-9*max(1, math.Abs(fa), math.Abs(fb))
	}
	return a == b
}

// sortKey orders a row for an unordered comparison: numbers rounded to 9
// digits, so that near-equal sums sort alike.
func sortKey(row []any) string {
	var b strings.Builder
	for _, v := range row {
		switch x := v.(type) {
		case nil:
			b.WriteString("\x00null")
		case float64:
			if x == 0 {
				x = 0 // -0
			}
			b.WriteString(strconv.FormatFloat(x, 'g', 9, 64))
		default:
			fmt.Fprint(&b, x)
		}
		b.WriteByte('\x01')
	}
	return b.String()
}

// diff compares two answers, in order where ordered, and says where they
// first differ, or "".
func diff(dusk, duck [][]any, ordered bool) string {
	if len(dusk) != len(duck) {
		return fmt.Sprintf("Dusk gave %d rows, DuckDB %d\n  Dusk:   %v\n  DuckDB: %v", len(dusk), len(duck), head(dusk), head(duck))
	}
	if !ordered {
		by := func(a, b []any) int { return strings.Compare(sortKey(a), sortKey(b)) }
		dusk, duck = slices.Clone(dusk), slices.Clone(duck)
		slices.SortFunc(dusk, by)
		slices.SortFunc(duck, by)
	}
	for i := range dusk {
		if len(dusk[i]) != len(duck[i]) {
			return fmt.Sprintf("row %d: Dusk gave %d columns, DuckDB %d", i, len(dusk[i]), len(duck[i]))
		}
		for c := range dusk[i] {
			if !sameCell(dusk[i][c], duck[i][c]) {
				return fmt.Sprintf("row %d column %d: Dusk %v, DuckDB %v\n  Dusk row:   %v\n  DuckDB row: %v", i, c, dusk[i][c], duck[i][c], dusk[i], duck[i])
			}
		}
	}
	return ""
}

func head(rows [][]any) [][]any { return rows[:min(len(rows), 4)] }

// unsigned is a uint64 as the other integers compare, a float64, where
// that is exact; above 2^53 (a hash), its digits.
func unsigned(v uint64) any {
	if v <= 1<<53 {
		return float64(v)
	}
	return strconv.FormatUint(v, 10)
}

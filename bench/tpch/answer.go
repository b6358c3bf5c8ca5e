package tpch

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/kernel"
)

// AnswerFile is the name of a query's answer file: q01.csv … q22.csv.
func AnswerFile(id string) string {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "q"))
	return fmt.Sprintf("q%02d.csv", n)
}

// WriteAnswer writes a query's answer as TPC-H's answer sets show it: a
// header of the TPC-H column names, fields separated by |, floats with two
// decimals, dates as YYYY-MM-DD, in the answer's row order.
func WriteAnswer(w io.Writer, q *Query, tab *dataframe.Table) error {
	rows, err := AnswerRows(q, tab)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(q.Columns, "|"))
	bw.WriteByte('\n')
	for _, r := range rows {
		bw.WriteString(strings.Join(r, "|"))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// AnswerRows formats an answer's fields as WriteAnswer writes them.
func AnswerRows(q *Query, tab *dataframe.Table) ([][]string, error) {
	rec := tab.Record()
	if int(rec.NumCols()) != len(q.Columns) {
		return nil, fmt.Errorf("%s: the answer has %d columns (%s), TPC-H's has %d (%s)", q.ID, rec.NumCols(),
			rec.Schema(), len(q.Columns), strings.Join(q.Columns, ", "))
	}
	rows := make([][]string, rec.NumRows())
	for i := range rows {
		rows[i] = make([]string, rec.NumCols())
	}
	for c, col := range rec.Columns() {
		if err := formatColumn(col, rows, c); err != nil {
			return nil, fmt.Errorf("%s column %s: %w", q.ID, q.Columns[c], err)
		}
	}
	return rows, nil
}

// formatColumn writes column c of rows from col.
func formatColumn(col arrow.Array, rows [][]string, c int) error {
	var format func(i int) string
	switch a := col.(type) {
	case *array.Float64:
		format = func(i int) string { return strconv.FormatFloat(a.Value(i), 'f', 2, 64) }
	case *array.Float32:
		format = func(i int) string { return strconv.FormatFloat(float64(a.Value(i)), 'f', 2, 32) }
	case *array.Date32:
		format = func(i int) string { return string(kernel.AppendDate(nil, int64(a.Value(i)))) }
	case *array.String:
		format = a.Value
	default:
		if k, err := kernel.KindOf(col.DataType()); err != nil || k != kernel.KindInt {
			return fmt.Errorf("no answer format for %s", col.DataType())
		}
		ints := kernel.Widen(col)
		defer ints.Release()
		v := ints.(*array.Int64)
		format = func(i int) string { return strconv.FormatInt(v.Value(i), 10) }
	}
	for i := range rows {
		if col.IsNull(i) {
			continue
		}
		rows[i][c] = format(i)
	}
	return nil
}

// ReadAnswer reads an answer file: its header, and its rows' fields.
func ReadAnswer(path string) (header []string, rows [][]string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return nil, nil, fmt.Errorf("%s: no header", path)
	}
	for _, l := range lines[1:] {
		rows = append(rows, strings.Split(l, "|"))
	}
	return strings.Split(lines[0], "|"), rows, nil
}

// tolerance is how far a number may be from the official answer's: 0.01,
// but for one value the kit itself has inexactly. Its q17 answer, 348406.02,
// is not what its rows sum to: in exact decimals (DuckDB, DECIMAL(15,2) on
// the same 587 lines) sum(l_extendedprice) is 2438842.38, and / 7 is
// 348406.054. No row set sums to the kit's value (a line costs over $900),
// and TPC-H's own validation allows a sum to be $100 off (clause 2.1.3.5).
var tolerance = map[string]float64{"q17": 0.04}

// CompareAnswer checks rows against the official answer's: as many rows,
// in the same order, numbers within 0.01 and other fields equal, trailing
// spaces trimmed. The error names the first row and column that differ.
func CompareAnswer(q *Query, got, want [][]string) error {
	tol := 0.01
	if t, ok := tolerance[q.ID]; ok {
		tol = t
	}
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d rows, the answer has %d", q.ID, len(got), len(want))
	}
	for r := range want {
		if len(got[r]) != len(want[r]) {
			return fmt.Errorf("%s row %d: %d fields, the answer has %d", q.ID, r+1, len(got[r]), len(want[r]))
		}
		for c := range want[r] {
			g, w := strings.TrimRight(got[r][c], " "), strings.TrimRight(want[r][c], " ")
			if g == w {
				continue
			}
			gf, err1 := strconv.ParseFloat(g, 64)
			wf, err2 := strconv.ParseFloat(w, 64)
			if err1 == nil && err2 == nil && math.Abs(gf-wf) <= tol+1e-9 {
				continue
			}
			return fmt.Errorf("%s row %d column %s: %q, the answer has %q", q.ID, r+1, q.Columns[c], g, w)
		}
	}
	return nil
}

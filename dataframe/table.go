package dataframe

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
)

// Table is a computed frame held in this process: one Arrow record, with
// strings plain. It prints as an aligned table.
type Table struct {
	rec     arrow.Record
	scanMu  sync.Mutex
	plans   map[reflect.Type]*scanPlan // Scan's, by struct type
	readers map[string]*reader         // Row.Value's, by column
}

// Record is the table's data; it stays owned by the table.
func (t *Table) Record() arrow.Record { return t.rec }

// NumRows is the number of rows.
func (t *Table) NumRows() int { return int(t.rec.NumRows()) }

// Schema is the table's columns and types.
func (t *Table) Schema() *arrow.Schema { return t.rec.Schema() }

// Column returns the named column, or nil if there is none.
func (t *Table) Column(name string) arrow.Array {
	if i := t.rec.Schema().FieldIndices(name); len(i) > 0 {
		return t.rec.Column(i[0])
	}
	return nil
}

// Release frees the table's data; the table must not be used afterwards.
func (t *Table) Release() {
	t.scanMu.Lock()
	for _, r := range t.readers {
		r.release()
	}
	t.plans, t.readers = nil, nil
	t.scanMu.Unlock()
	t.rec.Release()
}

// maxPrintRows is how many rows String shows before eliding the middle.
const maxPrintRows = 20

// String formats the table with a header, aligned columns (numbers to the
// right) and, past 20 rows, only the first and last ten.
func (t *Table) String() string {
	n := t.NumRows()
	rows := make([]int, 0, min(n, maxPrintRows))
	elide := n > maxPrintRows
	for i := 0; i < n; i++ {
		if !elide || i < maxPrintRows/2 || i >= n-maxPrintRows/2 {
			rows = append(rows, i)
		}
	}
	ncol := int(t.rec.NumCols())
	cells := make([][]string, ncol)
	widths := make([]int, ncol)
	right := make([]bool, ncol)
	for c := 0; c < ncol; c++ {
		col := t.rec.Column(c)
		name := t.rec.ColumnName(c)
		cells[c] = append(cells[c], name)
		widths[c] = utf8.RuneCountInString(name)
		right[c] = !kernel.IsString(col.DataType()) && col.DataType().ID() != arrow.BOOL
		for _, r := range rows {
			s := formatCell(col, r)
			cells[c] = append(cells[c], s)
			widths[c] = max(widths[c], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	line := func(i int) {
		for c := 0; c < ncol; c++ {
			if c > 0 {
				b.WriteString("  ")
			}
			s := cells[c][i]
			pad := strings.Repeat(" ", widths[c]-utf8.RuneCountInString(s))
			if right[c] {
				b.WriteString(pad + s)
			} else if c < ncol-1 {
				b.WriteString(s + pad)
			} else {
				b.WriteString(s)
			}
		}
		b.WriteByte('\n')
	}
	line(0)
	for i := range rows {
		if elide && i == maxPrintRows/2 {
			for c := 0; c < ncol; c++ {
				if c > 0 {
					b.WriteString("  ")
				}
				b.WriteString(strings.Repeat(" ", max(widths[c]-1, 0)) + "…")
			}
			b.WriteByte('\n')
		}
		line(i + 1)
	}
	b.WriteString("[" + strconv.Itoa(n) + " rows x " + strconv.Itoa(ncol) + " columns]\n")
	return b.String()
}

func formatCell(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "null"
	}
	switch a := col.(type) {
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float64:
		return formatFloat(a.Value(i))
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.String:
		return a.Value(i)
	}
	if text, err := kernel.TextOf(col); err == nil {
		return string(text(nil, i))
	}
	return col.ValueStr(i)
}

// formatFloat shows up to six decimals, as pandas does, without trailing
// zeros; very large or small magnitudes in scientific notation.
func formatFloat(v float64) string {
	abs := math.Abs(v)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if abs != 0 && (abs >= 1e16 || abs < 1e-4) {
		return strconv.FormatFloat(v, 'e', 6, 64)
	}
	s := strconv.FormatFloat(v, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}

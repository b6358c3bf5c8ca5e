package csv

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
)

// WriteOptions say how Write formats CSV. The zero value writes
// comma-separated rows under a header, nulls as empty fields.
type WriteOptions struct {
	Delimiter byte   `json:"delimiter,omitempty"` // default ','
	NoHeader  bool   `json:"no_header,omitempty"` // leave the header line out
	Null      string `json:"null,omitempty"`      // how a null is written; default empty
}

// Write writes rec's rows as CSV lines. Fields holding the delimiter, a
// quote or a line break are quoted; floats are written in their shortest
// form that reads back the same.
func Write(w io.Writer, rec arrow.Record, opts WriteOptions) error {
	delim := opts.Delimiter
	if delim == 0 {
		delim = ','
	}
	cols := make([]func([]byte, int) []byte, rec.NumCols())
	for i, c := range rec.Columns() {
		f, err := formatter(c, delim, opts.Null)
		if err != nil {
			return fmt.Errorf("column %s: %w", rec.ColumnName(i), err)
		}
		cols[i] = f
	}
	buf := make([]byte, 0, 1<<20)
	if !opts.NoHeader {
		for i := range cols {
			if i > 0 {
				buf = append(buf, delim)
			}
			buf = appendField(buf, rec.ColumnName(i), delim)
		}
		buf = append(buf, '\n')
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		for i, f := range cols {
			if i > 0 {
				buf = append(buf, delim)
			}
			buf = f(buf, r)
		}
		buf = append(buf, '\n')
		if len(buf) >= 1<<20-4096 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// formatter returns what appends row r of column c.
func formatter(c arrow.Array, delim byte, null string) (func([]byte, int) []byte, error) {
	nullable := c.NullN() > 0
	withNull := func(f func([]byte, int) []byte) func([]byte, int) []byte {
		if !nullable {
			return f
		}
		return func(b []byte, r int) []byte {
			if c.IsNull(r) {
				return append(b, null...)
			}
			return f(b, r)
		}
	}
	switch a := c.(type) {
	case *array.Int64:
		v := a.Int64Values()
		return withNull(func(b []byte, r int) []byte { return strconv.AppendInt(b, v[r], 10) }), nil
	case *array.Float64:
		v := a.Float64Values()
		return withNull(func(b []byte, r int) []byte { return appendFloat(b, v[r]) }), nil
	case *array.Boolean:
		return withNull(func(b []byte, r int) []byte { return strconv.AppendBool(b, a.Value(r)) }), nil
	case *array.String:
		return withNull(func(b []byte, r int) []byte { return appendField(b, a.Value(r), delim) }), nil
	case *array.Null: // every row null (Validity)
		return withNull(func(b []byte, _ int) []byte { return b }), nil
	case *array.Dictionary:
		dict := kernel.DictValues(a)
		idx := a.Indices().(*array.Int32).Int32Values()
		quoted := make([][]byte, dict.Len()) // each value formatted once
		for i := range quoted {
			quoted[i] = appendField(nil, dict.Value(i), delim)
		}
		return withNull(func(b []byte, r int) []byte { return append(b, quoted[idx[r]]...) }), nil
	}
	text, err := kernel.TextOf(c)
	if err != nil {
		return nil, fmt.Errorf("type %s cannot be written as CSV: %w", c.DataType(), err)
	}
	return withNull(text), nil
}

func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "inf"...)
	case math.IsInf(v, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendField appends s, quoted if it holds the delimiter, a quote or a
// line break, or is empty (so that it does not read back as null).
func appendField(b []byte, s string, delim byte) []byte {
	needs := s == ""
	for i := 0; i < len(s) && !needs; i++ {
		c := s[i]
		needs = c == delim || c == '"' || c == '\n' || c == '\r'
	}
	if !needs {
		return append(b, s...)
	}
	b = append(b, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, '"')
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '"')
}

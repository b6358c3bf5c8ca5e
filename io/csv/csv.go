// Package csv parses CSV into Arrow records with a purpose-built parser that
// scans each field once and writes straight into typed columns: integers and
// decimals are parsed as they are scanned, and strings with few distinct
// values are dictionary-encoded as they are read.
//
// Files are read in blocks, so that a large file becomes several partitions:
// a block owns the lines that start inside it. A quoted field that holds a
// line break must not straddle a block boundary (as in Dask); use a block
// size larger than the file for such data.
//
// Must never import: scheduler, worker, the collections.
package csv

import (
	"fmt"
	"strings"

	"github.com/duskdata/dusk/io/internal/colbuild"
	"github.com/duskdata/dusk/io/storage"
)

// Type is a column's type.
type Type = colbuild.Type

// The column types CSV columns parse into.
const (
	Int64   = colbuild.Int64
	Float64 = colbuild.Float64
	String  = colbuild.String
	Bool    = colbuild.Bool
)

// Column is a named, typed column.
type Column = colbuild.Column

// Schema is the columns of a CSV file, in order.
type Schema = colbuild.Schema

// DefaultNullValues are the fields read as null, as pandas reads them.
var DefaultNullValues = []string{"", "NA", "N/A", "NULL", "null", "NaN", "nan", "#N/A"}

// Options say how to read CSV. The zero value reads comma-separated files
// with a header line, inferring every column's type.
type Options struct {
	// Delimiter separates fields. Default ','.
	Delimiter byte `json:"delimiter,omitempty"`
	// Terminator, when set, is the one byte that ends a line (pandas'
	// lineterminator): \n and \r are then data like any other byte. By
	// default \n, \r\n and a lone \r each end a line.
	Terminator byte `json:"terminator,omitempty"`
	// NoHeader says the first line is data; Names must then be given.
	NoHeader bool `json:"no_header,omitempty"`
	// Names overrides the header's column names, or names the columns of a
	// file without one.
	Names []string `json:"names,omitempty"`
	// Types fixes the types of the named columns instead of inferring them:
	// int64, float64, string, bool, or any other type Dusk takes as Arrow
	// names it ("int32", "date32", "timestamp[us, tz=UTC]", "decimal(15, 2)").
	Types map[string]Type `json:"types,omitempty"`
	// TimeLayout is the Go layout of the date and timestamp columns that
	// Types names ("02/01/2006 15:04"); by default they are ISO 8601, as
	// the ones Infer finds are.
	TimeLayout string `json:"time_layout,omitempty"`
	// NullValues are fields read as null, besides DefaultNullValues.
	NullValues []string `json:"null_values,omitempty"`
	// NoDefaultNulls reads only NullValues as null.
	NoDefaultNulls bool `json:"no_default_nulls,omitempty"`
	// NoDictionary keeps every string column plain; by default Infer marks
	// string columns with few distinct values in its sample for dictionary
	// encoding, which groups and compares faster and takes less memory.
	NoDictionary bool `json:"no_dictionary,omitempty"`
	// Columns, when set, are the only columns parsed and returned (in the
	// file's order); the others are stepped over without being converted.
	Columns []string `json:"columns,omitempty"`

	defaulted bool // WithDefaults has run: NullValues holds the defaults too
}

// WithDefaults fills in the defaults and checks the options.
func (o Options) WithDefaults() (Options, error) {
	if o.Delimiter == 0 {
		o.Delimiter = ','
	}
	if o.Delimiter == '"' || lineEnd(o.Delimiter, o.Terminator) {
		return o, fmt.Errorf("csv: %q cannot be the delimiter", o.Delimiter)
	}
	if o.Terminator == '"' || o.Terminator != 0 && o.Terminator == o.Delimiter {
		return o, fmt.Errorf("csv: %q cannot be the line terminator", o.Terminator)
	}
	if !o.NoDefaultNulls && !o.defaulted {
		o.NullValues = append(append([]string(nil), DefaultNullValues...), o.NullValues...)
		o.defaulted = true
	}
	if o.NoHeader && len(o.Names) == 0 {
		return o, fmt.Errorf("csv: a file without a header needs column names (Names)")
	}
	for name, t := range o.Types {
		if !t.Valid() {
			return o, fmt.Errorf("csv: column %s: unknown type %q (want int64, float64, string, bool or another type as Arrow names it, such as date32, timestamp[us] or decimal(15, 2))", name, t)
		}
	}
	return o, nil
}

// lineEnds is what ends the lines that blocks split the file at.
func (o Options) lineEnds() storage.LineEnds {
	if o.Terminator != 0 {
		return storage.Terminator(o.Terminator)
	}
	return storage.AnyNewline
}

// nullSet matches null fields quickly: most fields are longer than any
// null value and are rejected by length alone, and most of the others by
// their first byte.
type nullSet struct {
	values []string
	maxLen int
	first  [256]bool // the first bytes of the values
	empty  bool      // "" is among the values
}

func newNullSet(values []string) nullSet {
	s := nullSet{values: values}
	for _, v := range values {
		s.maxLen = max(s.maxLen, len(v))
		if v == "" {
			s.empty = true
		} else {
			s.first[v[0]] = true
		}
	}
	return s
}

func (s *nullSet) match(field []byte) bool {
	if len(field) > s.maxLen {
		return false
	}
	if len(field) == 0 {
		return s.empty
	}
	if !s.first[field[0]] {
		return false
	}
	for _, v := range s.values {
		if string(field) == v {
			return true
		}
	}
	return false
}

// ParseError is a malformed line.
type ParseError struct {
	Path   string
	Line   int    // 1-based line number in the file
	Column string // empty when the whole line is wrong
	Msg    string
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("read ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "line %d", e.Line)
	if e.Column != "" {
		fmt.Fprintf(&b, " column %s", e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

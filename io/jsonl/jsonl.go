// Package jsonl reads JSON lines (one JSON object per line) into Arrow
// records and writes records as JSON lines. Parse is a purpose-built scanner
// that walks each line once and writes values straight into typed columns:
// no maps or interface values per row, numbers parsed in place, strings
// copied once (and decoded only when they hold escapes).
//
// Values map to Dusk's column types: integers to int64, other numbers to
// float64, true/false to bool, strings to string (dictionary-encoded when
// the schema says so), and nested objects and arrays to a string holding
// their JSON text as it appears in the line.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, the collections
// (dataframe, bag, array).
package jsonl

import (
	"fmt"
	"strings"

	"github.com/duskdata/dusk/io/internal/colbuild"
)

// Type is a column's type.
type Type = colbuild.Type

// The column types JSON values parse into.
const (
	Int64   = colbuild.Int64
	Float64 = colbuild.Float64
	String  = colbuild.String
	Bool    = colbuild.Bool
)

// Column is a named, typed column: the values of one key.
type Column = colbuild.Column

// Schema is the columns read from JSON lines, in order.
type Schema = colbuild.Schema

// check reports an unknown type or a name given twice.
func check(s Schema) error {
	seen := make(map[string]bool, len(s))
	for _, c := range s {
		if !c.Type.Valid() {
			return fmt.Errorf("jsonl: column %s: unknown type %q (want int64, float64, string, bool or another type as Arrow names it, such as date32, timestamp[us] or int32)", c.Name, c.Type)
		}
		if seen[c.Name] {
			return fmt.Errorf("jsonl: column %q appears twice in the schema", c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// ParseError is a malformed line or a value that does not fit its column.
type ParseError struct {
	Line   int    // 1-based, counted from the start of the data parsed
	Column string // the key whose value is wrong; empty when the line is
	Msg    string
}

func (e *ParseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "line %d", e.Line)
	if e.Column != "" {
		fmt.Fprintf(&b, " column %s", e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

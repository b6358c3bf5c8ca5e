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
// Must never import: scheduler, worker, internal/cluster, the collections
// (dataframe, bag, array).
package jsonl

import (
	"fmt"
	"strings"
)

// Type is a column's type.
type Type string

// The column types JSON values parse into.
const (
	Int64   Type = "int64"
	Float64 Type = "float64"
	String  Type = "string"
	Bool    Type = "bool"
)

func (t Type) valid() bool { return t == Int64 || t == Float64 || t == String || t == Bool }

// Column is a named, typed column: the values of one key.
type Column struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
	// Dictionary encodes a string column as indices into its distinct
	// values, for columns with few of them (Infer decides from its sample).
	Dictionary bool `json:"dict,omitempty"`
}

// Schema is the columns read from JSON lines, in order.
type Schema []Column

// Names lists the column names.
func (s Schema) Names() []string {
	names := make([]string, len(s))
	for i, c := range s {
		names[i] = c.Name
	}
	return names
}

// check reports an unknown type or a name given twice.
func (s Schema) check() error {
	seen := make(map[string]bool, len(s))
	for _, c := range s {
		if !c.Type.valid() {
			return fmt.Errorf("jsonl: column %s: unknown type %q (want int64, float64, string or bool)", c.Name, c.Type)
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

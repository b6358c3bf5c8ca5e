package expr

import "cmp"

// Range is what a reader knows of a column's values in a unit of data
// (a Parquet row group, a hive directory) before reading it: their least and
// greatest values, and whether some are null.
type Range struct {
	Min, Max any  // int64, float64, string or bool; nil: unknown
	Nulls    bool // some value may be null
	AllNull  bool // every value is null
	Paged    bool // a page index bounds the values of each page
}

// MayMatch reports whether some row described by ranges may satisfy e: it
// is false only when the ranges prove that no row does, so that the reader
// can skip the unit. ranges returns false for a column it knows nothing of.
// Each operation that can rule units out says how in the function table
// (function.mayMatch); any other may match.
func MayMatch(e *Node, ranges Ranges) bool {
	if f, ok := functions[e.Op]; ok && f.mayMatch != nil {
		return f.mayMatch(e, ranges)
	}
	return true
}

// Ranges gives a column's range, or false for a column nothing is known of.
type Ranges func(col string) (Range, bool)

// nullMayMatch is IsNull's: a unit without nulls holds no match.
func nullMayMatch(e *Node, ranges Ranges) bool {
	if e.Args[0].Op == "col" {
		if r, ok := ranges(e.Args[0].Name); ok {
			return r.Nulls || r.AllNull
		}
	}
	return true
}

// isinMayMatch is IsIn's: some value within the column's range.
func isinMayMatch(e *Node, ranges Ranges) bool {
	if e.Args[0].Op != "col" {
		return true
	}
	r, ok := ranges(e.Args[0].Name)
	if !ok || r.Min == nil {
		return !ok || !r.AllNull
	}
	for _, v := range e.Values {
		if within(v.Value(), r) {
			return true
		}
	}
	return false
}

// compareMayMatch is a comparison's of a column with a literal (either
// way round): the literal against the column's least and greatest values.
func compareMayMatch(e *Node, ranges Ranges) bool {
	col, lit, op := e.Args[0], e.Args[1], e.Op
	if col.Op == "lit" && lit.Op == "col" {
		col, lit, op = lit, col, flipped[op]
	}
	if col.Op != "col" || lit.Op != "lit" || lit.Lit == nil {
		return true
	}
	r, ok := ranges(col.Name)
	if !ok {
		return true
	}
	if r.AllNull || lit.Lit.Kind == "null" {
		return false // a comparison with null is never true
	}
	if r.Min == nil {
		return true
	}
	v := lit.Lit.Value()
	lo, okLo := Compare(r.Min, v)
	hi, okHi := Compare(r.Max, v)
	if !okLo || !okHi {
		return true
	}
	switch op {
	case "==":
		return lo <= 0 && hi >= 0
	case "!=":
		return !(lo == 0 && hi == 0)
	case "<":
		return lo < 0
	case "<=":
		return lo <= 0
	case ">":
		return hi > 0
	case ">=":
		return hi >= 0
	}
	return true
}

// flipped is the comparison with its operands swapped: 3 < x is x > 3.
var flipped = map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// within reports whether v may be in r.
func within(v any, r Range) bool {
	lo, ok1 := Compare(r.Min, v)
	hi, ok2 := Compare(r.Max, v)
	return !ok1 || !ok2 || (lo <= 0 && hi >= 0)
}

// Compare orders a against b when both are numbers, both strings or both
// bools; ok is false for values that do not compare.
func Compare(a, b any) (int, bool) {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmp.Compare(x, y), true
		case float64:
			return cmp.Compare(float64(x), y), true
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return cmp.Compare(x, float64(y)), true
		case float64:
			if x != x || y != y { // NaN: no order
				return 0, false
			}
			return cmp.Compare(x, y), true
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y), true
		}
	case bool:
		if y, ok := b.(bool); ok {
			return cmp.Compare(boolInt(x), boolInt(y)), true
		}
	}
	return 0, false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

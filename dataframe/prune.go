package dataframe

import (
	"cmp"

	"github.com/duskdata/dusk/dataframe/expr"
)

// colRange is what a reader knows of a column's values in a unit of data
// (a Parquet row group, a hive directory) before reading it: their least and
// greatest values, and whether some are null.
type colRange struct {
	min, max any  // int64, float64, string or bool; nil: unknown
	nulls    bool // some value may be null
	allNull  bool // every value is null
	paged    bool // a page index bounds the values of each page
}

// mayMatch reports whether some row described by ranges may satisfy e: it
// is false only when the ranges prove that no row does, so that the reader
// can skip the unit. ranges returns false for a column it knows nothing of.
func mayMatch(e *expr.Node, ranges func(col string) (colRange, bool)) bool {
	switch e.Op {
	case "and":
		return mayMatch(e.Args[0], ranges) && mayMatch(e.Args[1], ranges)
	case "or":
		return mayMatch(e.Args[0], ranges) || mayMatch(e.Args[1], ranges)
	case "isnull":
		if e.Args[0].Op == "col" {
			if r, ok := ranges(e.Args[0].Name); ok {
				return r.nulls || r.allNull
			}
		}
		return true
	case "isin":
		if e.Args[0].Op != "col" {
			return true
		}
		r, ok := ranges(e.Args[0].Name)
		if !ok || r.min == nil {
			return !ok || !r.allNull
		}
		for _, v := range e.Values {
			if within(v.Value(), r) {
				return true
			}
		}
		return false
	case "==", "!=", "<", "<=", ">", ">=":
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
		if r.allNull || lit.Lit.Kind == "null" {
			return false // a comparison with null is never true
		}
		if r.min == nil {
			return true
		}
		v := lit.Lit.Value()
		lo, okLo := compare(r.min, v)
		hi, okHi := compare(r.max, v)
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
	}
	return true
}

// flipped is the comparison with its operands swapped: 3 < x is x > 3.
var flipped = map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func within(v any, r colRange) bool {
	lo, ok1 := compare(r.min, v)
	hi, ok2 := compare(r.max, v)
	return !ok1 || !ok2 || (lo <= 0 && hi >= 0)
}

// compare orders a against b when both are numbers, both strings or both
// bools; ok is false for values that do not compare.
func compare(a, b any) (int, bool) {
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

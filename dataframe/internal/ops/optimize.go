package ops

import (
	"github.com/duskdata/dusk/dataframe/internal/expr"
)

// And is a ∧ b, either of which may be nil.
func And(a, b *expr.Node) *expr.Node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &expr.Node{Op: "and", Args: []*expr.Node{a, b}}
}

// Conjuncts splits a predicate at its top-level ands.
func Conjuncts(e *expr.Node) []*expr.Node {
	if e.Op == "and" {
		return append(Conjuncts(e.Args[0]), Conjuncts(e.Args[1])...)
	}
	return []*expr.Node{e}
}

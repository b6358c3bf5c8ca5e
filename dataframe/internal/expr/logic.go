package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// The function table's comparisons, logic, nulls and conditionals
// (functions.go describes the table).

// ---- comparisons and logic

// compareOperands gives a comparison's operands in their common type's
// physical form. Integers of any width, and dates with dates, go as they
// are: the kernel compares them in their own width where it can.
func compareOperands(c *evalCall, x, y value) (kernel.Datum, kernel.Datum, error) {
	plainInt := func(t arrow.DataType) bool { return arrow.IsInteger(t.ID()) }
	if plainInt(x.typ) && plainInt(y.typ) {
		return x.asDatum(), y.asDatum(), nil
	}
	if x.typ.ID() == arrow.DATE32 && y.typ.ID() == arrow.DATE32 {
		// Both 32-bit day counts: compared as they are where the kernel can.
		a, b := x.asDatum(), y.asDatum()
		if s, ok := b.Scalar.(int64); a.Array != nil && (b.Array != nil || ok && s == int64(int32(s))) {
			return a, b, nil
		}
		if s, ok := a.Scalar.(int64); b.Array != nil && ok && s == int64(int32(s)) {
			return a, b, nil
		}
	}
	if w, ok := WideChoice([]arrow.DataType{x.typ, y.typ}, []int{0, 1}); ok && (x.asDatum().Array != nil || y.asDatum().Array != nil) {
		// A decimal of more than 18 digits against a decimal or an integer:
		// exactly, as decimal128 values at one scale, not as floats.
		a, err := wideDecimalOf(x, w.(*arrow.Decimal128Type))
		if err != nil {
			return a, kernel.Datum{}, err
		}
		b, err := wideDecimalOf(y, w.(*arrow.Decimal128Type))
		return a, b, err
	}
	t, _ := CommonType(x.typ, y.typ)
	a, err := coerce(c, x, t)
	if err != nil {
		return a, kernel.Datum{}, err
	}
	b, err := coerce(c, y, t)
	return a, b, err
}

func logicFunctions() []*function {
	var out []*function
	for op := kernel.Eq; op <= kernel.Ge; op++ {
		out = append(out, &function{name: op.String(), arity: 2, format: infix, mayMatch: compareMayMatch,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				t, ok := CommonType(in[0], in[1])
				if !ok {
					return nil, fmt.Errorf("cannot compare %s with %s", Describe(c.n.Args[0], in[0]), Describe(c.n.Args[1], in[1]))
				}
				return kernel.Bool, checkTextLiterals(c, in, t)
			},
			eval: func(c *evalCall, in []value) (value, error) {
				a, b, err := compareOperands(c, in[0], in[1])
				if err != nil {
					return value{}, err
				}
				if a.Array == nil && b.Array == nil {
					a = kernel.Col(broadcast(a.Scalar, c.rows)) // kernels want a column on one side
				}
				if m, ok, err := gpuCompare(c.gpu, a, b, op); ok || err != nil {
					return c.mask(m), err
				}
				m, err := kernel.Compare(a, b, op, c.rows)
				return c.mask(m), err
			}})
	}
	boolRule := func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
		for i, t := range in {
			if k := KindOfType(t); k != kernel.KindBool && k != kernel.KindNull {
				return nil, fmt.Errorf("%s needs bool operands, but %s is not", c.n.Op, Describe(c.n.Args[i], t))
			}
		}
		return kernel.Bool, nil
	}
	return append(out,
		&function{name: "and", arity: 2, typeOf: boolRule, format: infix,
			mayMatch: func(e *Node, r Ranges) bool { return MayMatch(e.Args[0], r) && MayMatch(e.Args[1], r) },
			eval: func(c *evalCall, in []value) (value, error) {
				return c.mask(kernel.And(in[0].AsMask(c.rows), in[1].AsMask(c.rows))), nil
			}},
		&function{name: "or", arity: 2, typeOf: boolRule, format: infix,
			mayMatch: func(e *Node, r Ranges) bool { return MayMatch(e.Args[0], r) || MayMatch(e.Args[1], r) },
			eval: func(c *evalCall, in []value) (value, error) {
				return c.mask(kernel.Or(in[0].AsMask(c.rows), in[1].AsMask(c.rows))), nil
			}},
		&function{name: "not", arity: 1, typeOf: boolRule,
			format: func(_ *Node, args []string) string { return "not " + args[0] },
			eval: func(c *evalCall, in []value) (value, error) {
				return c.mask(kernel.Not(in[0].AsMask(c.rows))), nil
			}},
		&function{name: "isin", arity: 1, mayMatch: isinMayMatch,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				_, _, err := isinValues(nil, c.n, in[0])
				return kernel.Bool, err
			},
			eval: func(c *evalCall, in []value) (value, error) {
				t, vals, err := isinValues(c, c.n, in[0].typ)
				if err != nil {
					return value{}, err
				}
				col, err := coerce(c, in[0], t)
				if err != nil {
					return value{}, err
				}
				m, err := kernel.IsIn(col, vals, c.rows)
				return c.mask(m), err
			},
			format: func(n *Node, args []string) string {
				vals := make([]string, len(n.Values))
				for i, v := range n.Values {
					vals[i] = v.String()
				}
				return args[0] + " in (" + strings.Join(vals, ", ") + ")"
			}},
	)
}

// ---- nulls and conditionals

func nullFunctions() []*function {
	return []*function{
		{name: "isnull", arity: 1, typeOf: fixed(kernel.Bool), format: callFormat, mayMatch: nullMayMatch,
			eval: func(c *evalCall, in []value) (value, error) {
				return c.mask(kernel.IsNull(in[0].asDatum(), c.rows)), nil
			}},
		{name: "isnan", arity: 1, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				return kernel.Bool, needs(c, in, "a number", isNumeric)
			},
			eval: func(c *evalCall, in []value) (value, error) {
				return c.mask(kernel.IsNaN(in[0].asDatum(), c.rows)), nil
			}},
		{name: "coalesce", arity: 1, variadic: true, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				idx := make([]int, len(in))
				for i := range idx {
					idx[i] = i
				}
				return unify(c, in, idx)
			},
			eval: func(c *evalCall, in []value) (value, error) {
				// From the last operand back: where the earlier one is null, the later.
				res := in[len(in)-1]
				for i := len(in) - 2; i >= 0; i-- {
					var err error
					if res, err = c.choose(kernel.Not(kernel.IsNull(in[i].asDatum(), c.rows)), in[i], res); err != nil {
						return value{}, err
					}
				}
				return res, nil
			}},
		{name: "when", arity: 3, variadic: true,
			format: func(_ *Node, args []string) string {
				var b strings.Builder
				b.WriteString("when(")
				for i := 0; i+1 < len(args); i += 2 {
					fmt.Fprintf(&b, "%s then %s, ", args[i], args[i+1])
				}
				b.WriteString("otherwise " + args[len(args)-1] + ")")
				return b.String()
			},
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				if len(in)%2 == 0 {
					return nil, fmt.Errorf("when: conditions and values must pair, with one value otherwise")
				}
				var vals []int
				for i := 0; i+1 < len(in); i += 2 {
					if k := KindOfType(in[i]); k != kernel.KindBool && k != kernel.KindNull {
						return nil, fmt.Errorf("when needs a bool condition, but %s is not", Describe(c.n.Args[i], in[i]))
					}
					vals = append(vals, i+1)
				}
				return unify(c, in, append(vals, len(in)-1))
			},
			eval: func(c *evalCall, in []value) (value, error) {
				res := in[len(in)-1]
				for i := len(in) - 3; i >= 0; i -= 2 {
					var err error
					if res, err = c.choose(in[i].AsMask(c.rows), in[i+1], res); err != nil {
						return value{}, err
					}
				}
				return res, nil
			}},
	}
}

// And is a ∧ b, either of which may be nil.
func And(a, b *Node) *Node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &Node{Op: "and", Args: []*Node{a, b}}
}

// Conjuncts splits a predicate at its top-level ands.
func Conjuncts(e *Node) []*Node {
	if e.Op == "and" {
		return append(Conjuncts(e.Args[0]), Conjuncts(e.Args[1])...)
	}
	return []*Node{e}
}

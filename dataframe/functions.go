package dataframe

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/kernel"
)

// function describes one operation an expression can hold, once: its name,
// how many operands it takes, the rule that types its result from theirs
// (with the error when they do not fit), its evaluation over a partition's
// rows, and how it prints. Adding an operation is one entry here, its
// kernel, and its case in functions_test.go, which fails for an entry
// without a reference check.
type function struct {
	name     string
	arity    int  // operands; the least number where variadic
	variadic bool // takes arity or more operands
	typeOf   func(c *typeCall, in []arrow.DataType) (arrow.DataType, error)
	eval     func(c *evalCall, in []value) (value, error)
	format   func(n *exprNode, args []string) string
}

// typeCall is what a type rule sees of its call.
type typeCall struct {
	n      *exprNode
	schema *arrow.Schema
}

// evalCall is what an evaluation sees of its call: the node, the partition
// and, on a task that holds one, the GPU's kernels.
type evalCall struct {
	n    *exprNode
	rec  arrow.Record
	rows int
	gpu  gpu.Kernels
	out  arrow.DataType // the result's type, by the type rule
}

// functions is the table of every operation, by name.
var functions = map[string]*function{}

// Operations lists the name of every operation of the expression table,
// sorted: what every expression is built of, for tools that must reach
// them all (the differential fuzzer, the reference checks).
func Operations() []string { return slices.Sorted(maps.Keys(functions)) }

func init() {
	for _, list := range [][]*function{leafFunctions(), logicFunctions(), numberFunctions(), nullFunctions(), castFunctions(), stringFunctions(), temporalFunctions()} {
		for _, f := range list {
			if functions[f.name] != nil {
				panic("dataframe: function " + f.name + " described twice")
			}
			functions[f.name] = f
		}
	}
}

// ---- formats

func infix(n *exprNode, args []string) string {
	return "(" + args[0] + " " + n.Op + " " + args[1] + ")"
}

// callFormat prints op(args, options).
func callFormat(n *exprNode, args []string) string {
	for _, s := range n.Str {
		args = append(args, strconv.Quote(s))
	}
	for _, i := range n.Int {
		args = append(args, strconv.FormatInt(i, 10))
	}
	return n.Op + "(" + strings.Join(args, ", ") + ")"
}

// ---- type rules

// kindMonths is the kind of Months(n), a literal that only moves dates and
// timestamps: no column holds it.
const kindMonths kernel.Kind = 255

// kindOfType is the kernels' kind of an expression type.
func kindOfType(t arrow.DataType) kernel.Kind {
	if t.ID() == arrow.INTERVAL_MONTHS {
		return kindMonths
	}
	k, err := kernel.KindOf(t)
	if err != nil {
		panic(err) // typeOf only returns types kernels take
	}
	return k
}

// exprType is the type an expression of kind k has.
func exprType(k kernel.Kind) arrow.DataType { return k.Logical().Default }

func isNumeric(t arrow.DataType) bool {
	k := kindOfType(t)
	return k == kernel.KindInt || k == kernel.KindFloat || k == kernel.KindNull
}

// needs checks that operand i has a type test accepts, or says what the
// operation needs.
func needs(c *typeCall, in []arrow.DataType, what string, test func(arrow.DataType) bool) error {
	for i, t := range in {
		if !test(t) && t.ID() != arrow.NULL {
			return fmt.Errorf("%s needs %s, but %s is not", c.n.Op, what, describe(c.n.Args[i], t))
		}
	}
	return nil
}

func fixed(t arrow.DataType) func(*typeCall, []arrow.DataType) (arrow.DataType, error) {
	return func(*typeCall, []arrow.DataType) (arrow.DataType, error) { return t, nil }
}

// unify types operands idx of a call with their common type (commonType,
// folded left to right).
func unify(c *typeCall, in []arrow.DataType, idx []int) (arrow.DataType, error) {
	if t, ok := wideChoice(in, idx); ok {
		return t, nil
	}
	t := arrow.DataType(arrow.Null)
	for _, i := range idx {
		next, ok := commonType(t, in[i])
		if !ok {
			parts := make([]string, len(idx))
			for j, k := range idx {
				parts[j] = describe(c.n.Args[k], in[k])
			}
			return nil, fmt.Errorf("%s: %s have no common type", c.n.Op, strings.Join(parts, ", "))
		}
		t = next
	}
	return t, nil
}

// wideChoice is the type a choice between decimals (and integers) meets
// in where one has more than 18 digits: a decimal wide enough for each, at
// the largest scale, so that choosing keeps the values exact (arithmetic
// meets in float64 instead). ok is false where no operand is so wide or
// one is no decimal, integer or null.
func wideChoice(in []arrow.DataType, idx []int) (arrow.DataType, bool) {
	wide := false
	var digits, scale int32 // digits before the point, and after
	for _, i := range idx {
		switch t := in[i].(type) {
		case *arrow.Decimal128Type:
			wide = wide || isWideDecimal(t)
			digits, scale = max(digits, t.Precision-t.Scale), max(scale, t.Scale)
		case *arrow.NullType:
		default:
			if kindOfType(t) != kernel.KindInt {
				return nil, false
			}
			digits = max(digits, 19)
		}
	}
	if !wide {
		return nil, false
	}
	return &arrow.Decimal128Type{Precision: min(38, digits+scale), Scale: scale}, true
}

// choose is, row by row, a where cond holds, else b: both brought to the
// call's result type first.
func (c *evalCall) choose(cond kernel.Mask, a, b value) (value, error) {
	if to, ok := c.out.(*arrow.Decimal128Type); ok && isWideDecimal(to) {
		x, err := wideDecimalOf(a, to)
		if err != nil {
			return value{}, err
		}
		y, err := wideDecimalOf(b, to)
		if err != nil {
			return value{}, err
		}
		return value{datum: kernel.Col(kernel.ChooseDecimal(cond, x, y, to, c.rows)), typ: to}, nil
	}
	x, err := coerce(c, a, c.out)
	if err != nil {
		return value{}, err
	}
	y, err := coerce(c, b, c.out)
	if err != nil {
		return value{}, err
	}
	col, err := kernel.Choose(cond, x, y, physicalKind(c.out), c.rows)
	if err != nil {
		return value{}, err
	}
	return value{datum: kernel.Col(narrowTo(retype(col, c.out), c.out)), typ: c.out}, nil // a narrow int or float32 as declared
}

// isinValues types IsIn as comparisons are typed: the column and every
// value meet in one type (commonType), each value given in that type's
// physical form; a null value matches nothing. It fails naming the value
// that meets no type with the column's, or a string that does not parse as
// the date or timestamp it is compared with.
func isinValues(c *evalCall, n *exprNode, col arrow.DataType) (arrow.DataType, []any, error) {
	t := col
	for _, v := range n.Values {
		u, ok := commonType(t, v.typ())
		if !ok {
			return nil, nil, fmt.Errorf("isin: %s is compared with %s (%s)", describe(n.Args[0], col), v, typeName(v.typ()))
		}
		t = u
	}
	vals := make([]any, 0, len(n.Values))
	for _, v := range n.Values {
		if v.Kind == "null" {
			continue
		}
		d, err := coerce(c, value{datum: kernel.Scalar(v.value()), typ: v.typ()}, t)
		if err != nil {
			return nil, nil, fmt.Errorf("isin: %s: %w", describe(n.Args[0], col), err)
		}
		vals = append(vals, d.Scalar)
	}
	return t, vals, nil
}

// checkTextLiterals parses, at plan time, a string compared with a date or
// timestamp: it must be a literal in ISO 8601 form.
func checkTextLiterals(c *typeCall, in []arrow.DataType, t arrow.DataType) error {
	k := kindOfType(t)
	if k != kernel.KindDate && k != kernel.KindTimestamp {
		return nil
	}
	for i, a := range c.n.Args {
		if kindOfType(in[i]) != kernel.KindString {
			continue
		}
		if a.Op != "lit" {
			return fmt.Errorf("cannot compare %s with a %s: cast it first", describe(a, in[i]), typeName(t))
		}
		s := a.Lit.S
		if _, ok := kernel.ParseTime(s, ""); !ok || k == kernel.KindDate && len(s) != 10 {
			return fmt.Errorf("%s is not a %s in ISO 8601 form (2006-01-02%s)", a, typeName(t), map[bool]string{true: " or 2006-01-02T15:04:05"}[k == kernel.KindTimestamp])
		}
	}
	return nil
}

// ---- evaluation helpers

func (c *evalCall) mask(m kernel.Mask) value { return value{mask: m, isMask: true} }

func (c *evalCall) column(a arrow.Array) value { return value{datum: kernel.Col(a)} }

// array reads v as a column of the partition's length, broadcasting a
// scalar.
func (c *evalCall) array(v value) arrow.Array {
	d := v.asDatum()
	if d.Array != nil {
		return d.Array
	}
	return broadcast(d.Scalar, c.rows)
}

// ---- leaves

func leafFunctions() []*function {
	return []*function{
		{name: "col",
			typeOf: func(c *typeCall, _ []arrow.DataType) (arrow.DataType, error) {
				f, err := field(c.schema, c.n.Name)
				if err != nil {
					return nil, err
				}
				if _, err := kernel.KindOf(f.Type); err != nil {
					return nil, fmt.Errorf("column %q: %w", c.n.Name, err)
				}
				return plainOf(f.Type), nil
			},
			eval: func(c *evalCall, _ []value) (value, error) {
				i, err := columnIndex(c.rec.Schema(), c.n.Name)
				if err != nil {
					return value{}, err
				}
				return c.column(c.rec.Column(i)), nil
			},
			format: func(n *exprNode, _ []string) string { return n.Name }},
		{name: "alias", arity: 1,
			typeOf: func(_ *typeCall, in []arrow.DataType) (arrow.DataType, error) { return in[0], nil },
			eval:   func(_ *evalCall, in []value) (value, error) { return in[0], nil },
			format: func(n *exprNode, args []string) string { return args[0] + " as " + strconv.Quote(n.Name) }},
		{name: "lit",
			typeOf: func(c *typeCall, _ []arrow.DataType) (arrow.DataType, error) {
				if c.n.Lit == nil {
					return nil, fmt.Errorf("a literal without a value")
				}
				return c.n.Lit.typ(), nil
			},
			eval: func(c *evalCall, _ []value) (value, error) {
				return value{datum: kernel.Scalar(c.n.Lit.value())}, nil
			},
			format: func(n *exprNode, _ []string) string {
				if n.Lit == nil {
					return "<bad literal>"
				}
				return n.Lit.String()
			}},
	}
}

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
	if w, ok := wideChoice([]arrow.DataType{x.typ, y.typ}, []int{0, 1}); ok && (x.asDatum().Array != nil || y.asDatum().Array != nil) {
		// A decimal of more than 18 digits against a decimal or an integer:
		// exactly, as decimal128 values at one scale, not as floats.
		a, err := wideDecimalOf(x, w.(*arrow.Decimal128Type))
		if err != nil {
			return a, kernel.Datum{}, err
		}
		b, err := wideDecimalOf(y, w.(*arrow.Decimal128Type))
		return a, b, err
	}
	t, _ := commonType(x.typ, y.typ)
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
		out = append(out, &function{name: op.String(), arity: 2, format: infix,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				t, ok := commonType(in[0], in[1])
				if !ok {
					return nil, fmt.Errorf("cannot compare %s with %s", describe(c.n.Args[0], in[0]), describe(c.n.Args[1], in[1]))
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
			if k := kindOfType(t); k != kernel.KindBool && k != kernel.KindNull {
				return nil, fmt.Errorf("%s needs bool operands, but %s is not", c.n.Op, describe(c.n.Args[i], t))
			}
		}
		return kernel.Bool, nil
	}
	return append(out,
		&function{name: "and", arity: 2, typeOf: boolRule, format: infix,
			eval: func(c *evalCall, in []value) (value, error) {
				return c.mask(kernel.And(in[0].asMask(c.rows), in[1].asMask(c.rows))), nil
			}},
		&function{name: "or", arity: 2, typeOf: boolRule, format: infix,
			eval: func(c *evalCall, in []value) (value, error) {
				return c.mask(kernel.Or(in[0].asMask(c.rows), in[1].asMask(c.rows))), nil
			}},
		&function{name: "not", arity: 1, typeOf: boolRule,
			format: func(_ *exprNode, args []string) string { return "not " + args[0] },
			eval: func(c *evalCall, in []value) (value, error) {
				return c.mask(kernel.Not(in[0].asMask(c.rows))), nil
			}},
		&function{name: "isin", arity: 1,
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
			format: func(n *exprNode, args []string) string {
				vals := make([]string, len(n.Values))
				for i, v := range n.Values {
					vals[i] = v.String()
				}
				return args[0] + " in (" + strings.Join(vals, ", ") + ")"
			}},
	)
}

// ---- numbers

func numberFunctions() []*function {
	var out []*function
	for op := kernel.Add; op <= kernel.Div; op++ {
		out = append(out, &function{name: op.String(), arity: 2, format: infix,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				t, _, err := arithRule(op, in[0], in[1])
				if err != nil {
					return nil, fmt.Errorf("cannot compute %s: %s %s %s: %w", c.n, describe(c.n.Args[0], in[0]), op, describe(c.n.Args[1], in[1]), err)
				}
				return t, nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				col, err := evalArith(c, op, in[0], in[1])
				return c.column(col), err
			}})
	}
	binary := func(name string, kernelFn func(a, b kernel.Datum, n int) (arrow.Array, error), result func(a, b arrow.DataType) arrow.DataType) *function {
		return &function{name: name, arity: 2, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				if err := needs(c, in, "numbers", isNumeric); err != nil {
					return nil, err
				}
				return result(in[0], in[1]), nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				col, err := kernelFn(in[0].asDatum(), in[1].asDatum(), c.rows)
				if err != nil {
					return value{}, err
				}
				return c.column(narrowTo(col, c.out)), nil
			}}
	}
	out = append(out,
		binary("mod", kernel.Mod, numberSupertype),
		binary("pow", kernel.Pow, func(a, b arrow.DataType) arrow.DataType { return kernel.Float64 }))
	for op := kernel.Neg; op <= kernel.Ceil; op++ {
		out = append(out, &function{name: op.String(), arity: 1, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				if kindOfType(in[0]) == kernel.KindDecimal {
					if op == kernel.Sqrt || op == kernel.Log || op == kernel.Exp {
						return kernel.Float64, nil
					}
					return in[0], nil // exact, at its own scale
				}
				k, err := op.ResultKind(kindOfType(in[0]))
				if err != nil {
					return nil, fmt.Errorf("%s needs a number, but %s is not", op, describe(c.n.Args[0], in[0]))
				}
				if op == kernel.Neg && kindOfType(in[0]) == kernel.KindInt && !isSigned(in[0]) {
					// The negation of an unsigned integer is signed, one width
					// up (it wrapped in the operand's type: -61 as 65475).
					return intType(min(2*bitWidth(in[0]), 64), true), nil
				}
				if k == kindOfType(in[0]) && op != kernel.Sqrt && op != kernel.Log && op != kernel.Exp {
					return numberSupertype(in[0], arrow.Null), nil // the operand's own type
				}
				return exprType(k), nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				x := c.array(in[0])
				if dt, ok := in[0].typ.(*arrow.Decimal128Type); ok {
					if op != kernel.Sqrt && op != kernel.Log && op != kernel.Exp {
						return c.column(decimalMath(c, in[0], dt, op)), nil
					}
					f, err := coerce(c, in[0], kernel.Float64)
					if err != nil {
						return value{}, err
					}
					x = c.array(value{datum: f, typ: kernel.Float64})
				}
				col, err := kernel.Math(x, op)
				if err != nil {
					return value{}, err
				}
				return c.column(narrowTo(col, c.out)), nil
			}})
	}
	return append(out, &function{name: "round", arity: 1, format: callFormat,
		typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
			if kindOfType(in[0]) == kernel.KindDecimal {
				return in[0], nil
			}
			if err := needs(c, in, "a number", isNumeric); err != nil {
				return nil, err
			}
			return numberSupertype(in[0], arrow.Null), nil // the operand's own type
		},
		eval: func(c *evalCall, in []value) (value, error) {
			if dt, ok := in[0].typ.(*arrow.Decimal128Type); ok {
				return c.column(decimalRound(c, in[0], dt, int32(c.n.Int[0]))), nil
			}
			col, err := kernel.Round(kernel.Widen(c.array(in[0])), int(c.n.Int[0]))
			if err != nil {
				return value{}, err
			}
			return c.column(narrowTo(col, c.out)), nil
		}})
}

// decimalMath is Neg, Abs, Floor or Ceil of a decimal, exact on its
// unscaled values, in its own type.
func decimalMath(c *evalCall, v value, t *arrow.Decimal128Type, op kernel.MathOp) arrow.Array {
	unit := kernel.Pow10(t.Scale)
	f := map[kernel.MathOp]func(int64) int64{
		kernel.Neg:   func(x int64) int64 { return -x },
		kernel.Abs:   func(x int64) int64 { return max(x, -x) },
		kernel.Floor: func(x int64) int64 { return floorDiv(x, unit) * unit },
		kernel.Ceil:  func(x int64) int64 { return -floorDiv(-x, unit) * unit },
	}[op]
	return retype(c.array(value{datum: mapInts(intsOf(v.asDatum()), f), typ: kernel.Int64}), t)
}

// decimalRound rounds a decimal to digits after the point, half away from
// zero, as pandas and DuckDB round decimals, in its own type.
func decimalRound(c *evalCall, v value, t *arrow.Decimal128Type, digits int32) arrow.Array {
	if digits >= t.Scale {
		return retype(c.array(value{datum: intsOf(v.asDatum()), typ: kernel.Int64}), t)
	}
	m := kernel.Pow10(t.Scale - max(digits, t.Scale-decimalMaxPrecision))
	round := func(x int64) int64 {
		q, r := x/m, x%m
		if 2*max(r, -r) >= m {
			if x < 0 {
				q--
			} else {
				q++
			}
		}
		return q * m
	}
	return retype(c.array(value{datum: mapInts(intsOf(v.asDatum()), round), typ: kernel.Int64}), t)
}

// ---- nulls and conditionals

func nullFunctions() []*function {
	return []*function{
		{name: "isnull", arity: 1, typeOf: fixed(kernel.Bool), format: callFormat,
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
			format: func(_ *exprNode, args []string) string {
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
					if k := kindOfType(in[i]); k != kernel.KindBool && k != kernel.KindNull {
						return nil, fmt.Errorf("when needs a bool condition, but %s is not", describe(c.n.Args[i], in[i]))
					}
					vals = append(vals, i+1)
				}
				return unify(c, in, append(vals, len(in)-1))
			},
			eval: func(c *evalCall, in []value) (value, error) {
				res := in[len(in)-1]
				for i := len(in) - 3; i >= 0; i -= 2 {
					var err error
					if res, err = c.choose(in[i].asMask(c.rows), in[i+1], res); err != nil {
						return value{}, err
					}
				}
				return res, nil
			}},
	}
}

// ---- strings

func isString(t arrow.DataType) bool { return kindOfType(t) == kernel.KindString }

// stringTest is a string predicate whose test is made from the call's
// options (and checked at plan time by making it).
func stringTest(name string, make func(n *exprNode) (func([]byte) bool, error)) *function {
	return &function{name: name, arity: 1, format: callFormat,
		typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
			if err := needs(c, in, "a string", isString); err != nil {
				return nil, err
			}
			_, err := make(c.n)
			return kernel.Bool, err
		},
		eval: func(c *evalCall, in []value) (value, error) {
			test, err := make(c.n)
			if err != nil {
				return value{}, err
			}
			return c.mask(kernel.StringTest(c.array(in[0]), test)), nil
		}}
}

// stringMap is a string to string function made from the call's options.
func stringMap(name string, make func(n *exprNode) (func(dst, s []byte) ([]byte, bool), error)) *function {
	return &function{name: name, arity: 1, format: callFormat,
		typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
			if err := needs(c, in, "a string", isString); err != nil {
				return nil, err
			}
			_, err := make(c.n)
			return kernel.String, err
		},
		eval: func(c *evalCall, in []value) (value, error) {
			f, err := make(c.n)
			if err != nil {
				return value{}, err
			}
			return c.column(kernel.StringMap(c.array(in[0]), f)), nil
		}}
}

func literalTest(test func(s, pat []byte) bool) func(n *exprNode) (func([]byte) bool, error) {
	return func(n *exprNode) (func([]byte) bool, error) {
		pat := []byte(n.Str[0])
		return func(s []byte) bool { return test(s, pat) }, nil
	}
}

func stringFunctions() []*function {
	contains := stringTest("str.contains", literalTest(bytes.Contains))
	contains.eval = func(c *evalCall, in []value) (value, error) {
		return c.mask(kernel.Contains(c.array(in[0]), []byte(c.n.Str[0]))), nil
	}
	return []*function{
		contains,
		stringTest("str.starts_with", literalTest(bytes.HasPrefix)),
		stringTest("str.ends_with", literalTest(bytes.HasSuffix)),
		stringTest("str.matches", func(n *exprNode) (func([]byte) bool, error) {
			re, err := regexp.Compile(n.Str[0])
			if err != nil {
				return nil, fmt.Errorf("str.matches: %w", err)
			}
			return re.Match, nil
		}),
		stringTest("str.like", likeTest),
		stringMap("str.lower", func(*exprNode) (func(dst, s []byte) ([]byte, bool), error) {
			return caseMap(bytes.ToLower, 'A', 'Z'), nil
		}),
		stringMap("str.upper", func(*exprNode) (func(dst, s []byte) ([]byte, bool), error) {
			return caseMap(bytes.ToUpper, 'a', 'z'), nil
		}),
		stringMap("str.strip", func(*exprNode) (func(dst, s []byte) ([]byte, bool), error) {
			return func(dst, s []byte) ([]byte, bool) { return append(dst, bytes.TrimSpace(s)...), true }, nil
		}),
		stringMap("str.replace", func(n *exprNode) (func(dst, s []byte) ([]byte, bool), error) {
			old, new := []byte(n.Str[0]), []byte(n.Str[1])
			if len(old) == 0 {
				return nil, fmt.Errorf("str.replace: the text to replace is empty")
			}
			return func(dst, s []byte) ([]byte, bool) {
				for {
					i := bytes.Index(s, old)
					if i < 0 {
						return append(dst, s...), true
					}
					dst = append(append(dst, s[:i]...), new...)
					s = s[i+len(old):]
				}
			}, nil
		}),
		stringMap("str.slice", func(n *exprNode) (func(dst, s []byte) ([]byte, bool), error) {
			start, length := int(n.Int[0]), int(n.Int[1])
			return func(dst, s []byte) ([]byte, bool) { return append(dst, sliceRunes(s, start, length)...), true }, nil
		}),
		stringMap("str.split_get", func(n *exprNode) (func(dst, s []byte) ([]byte, bool), error) {
			sep, i := []byte(n.Str[0]), int(n.Int[0])
			if len(sep) == 0 {
				return nil, fmt.Errorf("str.split_get: the separator is empty")
			}
			return func(dst, s []byte) ([]byte, bool) {
				piece, ok := splitGet(s, sep, i)
				return append(dst, piece...), ok
			}, nil
		}),
		{name: "str.len", arity: 1, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				return kernel.Int64, needs(c, in, "a string", isString)
			},
			eval: func(c *evalCall, in []value) (value, error) {
				return c.column(kernel.StringInts(c.array(in[0]), kernel.RuneCount)), nil
			}},
		{name: "concat_str", arity: 1, variadic: true, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				return kernel.String, nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				parts := make([]kernel.Datum, len(in))
				for i, v := range in {
					d := v.asDatum()
					switch {
					case d.Array == nil && d.Scalar != nil:
						d = kernel.Scalar(formatScalar(d.Scalar))
					case d.Array != nil && d.Kind() != kernel.KindString:
						col, err := kernel.Cast(d.Array, kernel.KindString, true)
						if err != nil {
							return value{}, err
						}
						d = kernel.Col(col)
					}
					parts[i] = d
				}
				return c.column(kernel.ConcatStrings(parts, c.rows)), nil
			}},
	}
}

// formatScalar writes a literal as concat_str joins it.
func formatScalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return string(kernel.AppendFloat(nil, v))
	}
	return fmt.Sprint(v)
}

// caseMap changes case, byte by byte where s is ASCII.
func caseMap(full func([]byte) []byte, lo, hi byte) func(dst, s []byte) ([]byte, bool) {
	return func(dst, s []byte) ([]byte, bool) {
		for _, c := range s {
			if c >= utf8.RuneSelf {
				return append(dst, full(s)...), true
			}
		}
		for _, c := range s {
			if c >= lo && c <= hi {
				c ^= 0x20
			}
			dst = append(dst, c)
		}
		return dst, true
	}
}

// sliceRunes is length characters of s from start (negative: from the end;
// a negative length: to the end).
func sliceRunes(s []byte, start, length int) []byte {
	n := utf8.RuneCount(s)
	if start < 0 {
		start = max(n+start, 0)
	}
	start = min(start, n)
	end := n
	if length >= 0 {
		end = min(start+length, n)
	}
	if n == len(s) { // ASCII
		return s[start:end]
	}
	i, lo, hi := 0, len(s), len(s)
	for pos := range string(s) {
		if i == start {
			lo = pos
		}
		if i == end {
			hi = pos
			break
		}
		i++
	}
	return s[lo:hi]
}

// splitGet is piece i of s cut at sep (negative i from the end).
func splitGet(s, sep []byte, i int) ([]byte, bool) {
	if i < 0 {
		for ; ; i++ {
			j := bytes.LastIndex(s, sep)
			if i == -1 {
				return s[j+len(sep):], true // j = -1: the whole first piece
			}
			if j < 0 {
				return nil, false
			}
			s = s[:j]
		}
	}
	for ; ; i-- {
		j := bytes.Index(s, sep)
		if i == 0 {
			if j < 0 {
				return s, true
			}
			return s[:j], true
		}
		if j < 0 {
			return nil, false
		}
		s = s[j+len(sep):]
	}
}

// likeTest makes SQL's LIKE test. A pattern with no _ runs as literal
// searches: its first piece a prefix, its last a suffix, and those between
// found in order, each leftmost (which is enough where % is the only
// wildcard); a pattern with _ runs as a regular expression.
func likeTest(n *exprNode) (func([]byte) bool, error) {
	pat := n.Str[0]
	if !strings.Contains(pat, "_") {
		pieces := bytes.Split([]byte(pat), []byte("%"))
		if len(pieces) == 1 {
			return func(s []byte) bool { return bytes.Equal(s, pieces[0]) }, nil
		}
		first, last, middle := pieces[0], pieces[len(pieces)-1], pieces[1:len(pieces)-1]
		return func(s []byte) bool {
			if len(s) < len(first)+len(last) || !bytes.HasPrefix(s, first) || !bytes.HasSuffix(s, last) {
				return false
			}
			s = s[len(first) : len(s)-len(last)]
			for _, m := range middle {
				i := bytes.Index(s, m)
				if i < 0 {
					return false
				}
				s = s[i+len(m):]
			}
			return true
		}, nil
	}
	var re strings.Builder
	re.WriteString(`(?s)^`)
	for _, r := range pat {
		switch r {
		case '%':
			re.WriteString(".*")
		case '_':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("$")
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("str.like %q: %w", pat, err)
	}
	return compiled.Match, nil
}

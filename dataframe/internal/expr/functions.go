package expr

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

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
	format   func(n *Node, args []string) string
	// mayMatch, for a predicate that can rule out a unit of data by its
	// columns' ranges (a row group's statistics, a hive directory), is
	// MayMatch's rule; nil: any unit may match.
	mayMatch func(e *Node, ranges Ranges) bool
}

// typeCall is what a type rule sees of its call.
type typeCall struct {
	n      *Node
	schema *arrow.Schema
}

// evalCall is what an evaluation sees of its call: the node, the partition
// and, on a task that holds one, the GPU's kernels.
type evalCall struct {
	n    *Node
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

func infix(n *Node, args []string) string {
	return "(" + args[0] + " " + n.Op + " " + args[1] + ")"
}

// callFormat prints op(args, options).
func callFormat(n *Node, args []string) string {
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

// KindOfType is the kernels' kind of an expression type.
func KindOfType(t arrow.DataType) kernel.Kind {
	if t.ID() == arrow.INTERVAL_MONTHS {
		return kindMonths
	}
	k, err := kernel.KindOf(t)
	if err != nil {
		panic(err) // typeOf only returns types kernels take
	}
	return k
}

// TypeOfKind is the type an expression of kind k has.
func TypeOfKind(k kernel.Kind) arrow.DataType { return k.Logical().Default }

func isNumeric(t arrow.DataType) bool {
	k := KindOfType(t)
	return k == kernel.KindInt || k == kernel.KindFloat || k == kernel.KindNull
}

// needs checks that operand i has a type test accepts, or says what the
// operation needs.
func needs(c *typeCall, in []arrow.DataType, what string, test func(arrow.DataType) bool) error {
	for i, t := range in {
		if !test(t) && t.ID() != arrow.NULL {
			return fmt.Errorf("%s needs %s, but %s is not", c.n.Op, what, Describe(c.n.Args[i], t))
		}
	}
	return nil
}

func fixed(t arrow.DataType) func(*typeCall, []arrow.DataType) (arrow.DataType, error) {
	return func(*typeCall, []arrow.DataType) (arrow.DataType, error) { return t, nil }
}

// unify types operands idx of a call with their common type (CommonType,
// folded left to right).
func unify(c *typeCall, in []arrow.DataType, idx []int) (arrow.DataType, error) {
	if t, ok := WideChoice(in, idx); ok {
		return t, nil
	}
	t := arrow.DataType(arrow.Null)
	for _, i := range idx {
		next, ok := CommonType(t, in[i])
		if !ok {
			parts := make([]string, len(idx))
			for j, k := range idx {
				parts[j] = Describe(c.n.Args[k], in[k])
			}
			return nil, fmt.Errorf("%s: %s have no common type", c.n.Op, strings.Join(parts, ", "))
		}
		t = next
	}
	return t, nil
}

// WideChoice is the type a choice between decimals (and integers) meets
// in where one has more than 18 digits: a decimal wide enough for each, at
// the largest scale, so that choosing keeps the values exact (arithmetic
// meets in float64 instead). ok is false where no operand is so wide or
// one is no decimal, integer or null.
func WideChoice(in []arrow.DataType, idx []int) (arrow.DataType, bool) {
	wide := false
	var digits, scale int32 // digits before the point, and after
	for _, i := range idx {
		switch t := in[i].(type) {
		case *arrow.Decimal128Type:
			wide = wide || isWideDecimal(t)
			digits, scale = max(digits, t.Precision-t.Scale), max(scale, t.Scale)
		case *arrow.NullType:
		default:
			if KindOfType(t) != kernel.KindInt {
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
	col, err := kernel.Choose(cond, x, y, PhysicalKind(c.out), c.rows)
	if err != nil {
		return value{}, err
	}
	return value{datum: kernel.Col(narrowTo(Retype(col, c.out), c.out)), typ: c.out}, nil // a narrow int or float32 as declared
}

// isinValues types IsIn as comparisons are typed: the column and every
// value meet in one type (CommonType), each value given in that type's
// physical form; a null value matches nothing. It fails naming the value
// that meets no type with the column's, or a string that does not parse as
// the date or timestamp it is compared with.
func isinValues(c *evalCall, n *Node, col arrow.DataType) (arrow.DataType, []any, error) {
	// Each value first meets the column alone, as in col == v: a string
	// compared with a date or timestamp is read in the column's own type
	// (and zone), whatever the other values are.
	typed := make([]value, 0, len(n.Values))
	t := col
	for _, v := range n.Values {
		if v.Kind == "null" {
			continue
		}
		u, ok := CommonType(col, v.Type())
		if !ok {
			return nil, nil, fmt.Errorf("isin: %s is compared with %s (%s)", Describe(n.Args[0], col), v, TypeName(v.Type()))
		}
		x := value{datum: kernel.Scalar(v.Value()), typ: v.Type()}
		if KindOfType(v.Type()) == kernel.KindString && KindOfType(u) != kernel.KindString {
			d, err := coerce(c, x, u)
			if err != nil {
				return nil, nil, fmt.Errorf("isin: %s: %w", Describe(n.Args[0], col), err)
			}
			x = value{datum: d, typ: u}
		}
		if t, ok = CommonType(t, x.typ); !ok {
			return nil, nil, fmt.Errorf("isin: %s is compared with %s (%s)", Describe(n.Args[0], col), v, TypeName(v.Type()))
		}
		typed = append(typed, x)
	}
	vals := make([]any, 0, len(typed))
	for _, x := range typed {
		d, err := coerce(c, x, t)
		if err != nil {
			return nil, nil, fmt.Errorf("isin: %s: %w", Describe(n.Args[0], col), err)
		}
		vals = append(vals, d.Scalar)
	}
	return t, vals, nil
}

// checkTextLiterals parses, at plan time, a string compared with a date or
// timestamp: it must be a literal in ISO 8601 form.
func checkTextLiterals(c *typeCall, in []arrow.DataType, t arrow.DataType) error {
	k := KindOfType(t)
	if k != kernel.KindDate && k != kernel.KindTimestamp {
		return nil
	}
	for i, a := range c.n.Args {
		if KindOfType(in[i]) != kernel.KindString {
			continue
		}
		if a.Op != "lit" {
			return fmt.Errorf("cannot compare %s with a %s: cast it first", Describe(a, in[i]), TypeName(t))
		}
		s := a.Lit.S
		if _, ok := kernel.ParseTime(s, ""); !ok || k == kernel.KindDate && len(s) != 10 {
			return fmt.Errorf("%s is not a %s in ISO 8601 form (2006-01-02%s)", a, TypeName(t), map[bool]string{true: " or 2006-01-02T15:04:05"}[k == kernel.KindTimestamp])
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
				f, err := Field(c.schema, c.n.Name)
				if err != nil {
					return nil, err
				}
				if _, err := kernel.KindOf(f.Type); err != nil {
					return nil, fmt.Errorf("column %q: %w", c.n.Name, err)
				}
				return plainOf(f.Type), nil
			},
			eval: func(c *evalCall, _ []value) (value, error) {
				i, err := ColumnIndex(c.rec.Schema(), c.n.Name)
				if err != nil {
					return value{}, err
				}
				return c.column(c.rec.Column(i)), nil
			},
			format: func(n *Node, _ []string) string { return n.Name }},
		{name: "alias", arity: 1,
			typeOf: func(_ *typeCall, in []arrow.DataType) (arrow.DataType, error) { return in[0], nil },
			eval:   func(_ *evalCall, in []value) (value, error) { return in[0], nil },
			format: func(n *Node, args []string) string { return args[0] + " as " + strconv.Quote(n.Name) }},
		{name: "lit",
			typeOf: func(c *typeCall, _ []arrow.DataType) (arrow.DataType, error) {
				if c.n.Lit == nil {
					return nil, fmt.Errorf("a literal without a value")
				}
				return c.n.Lit.Type(), nil
			},
			eval: func(c *evalCall, _ []value) (value, error) {
				return value{datum: kernel.Scalar(c.n.Lit.Value())}, nil
			},
			format: func(n *Node, _ []string) string {
				if n.Lit == nil {
					return "<bad literal>"
				}
				return n.Lit.String()
			}},
	}
}

package dataframe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/kernel"
)

// Expr is an expression over a frame's columns, such as
// Col("num_clicks").Gt(2).And(Col("area").IsIn("north", "south")). Methods
// that take an operand accept an Expr or a Go value (int, float64, string,
// bool, nil), which becomes a literal.
type Expr struct{ n *exprNode }

// exprNode is the serialized form of an expression: tasks carry it as data.
type exprNode struct {
	Op     string      `json:"op"` // col lit cmp and or not isin isnull arith
	Name   string      `json:"name,omitempty"`
	Lit    *literal    `json:"lit,omitempty"`
	Cmp    string      `json:"cmp,omitempty"`
	Arith  string      `json:"arith,omitempty"`
	Args   []*exprNode `json:"args,omitempty"`
	Values []literal   `json:"values,omitempty"`
	Err    string      `json:"err,omitempty"` // a literal that could not be made
}

// literal is a typed constant; floats travel as text so NaN and ±Inf survive.
type literal struct {
	Kind string `json:"kind"` // int64 float64 string bool null
	I    int64  `json:"i,omitempty"`
	F    string `json:"f,omitempty"`
	S    string `json:"s,omitempty"`
	B    bool   `json:"b,omitempty"`
}

func (l literal) value() any {
	switch l.Kind {
	case "int64":
		return l.I
	case "float64":
		f, _ := strconv.ParseFloat(l.F, 64)
		return f
	case "string":
		return l.S
	case "bool":
		return l.B
	}
	return nil
}

func (l literal) kind() kernel.Kind {
	switch l.Kind {
	case "int64":
		return kernel.KindInt
	case "float64":
		return kernel.KindFloat
	case "string":
		return kernel.KindString
	case "bool":
		return kernel.KindBool
	}
	return kernel.KindNull
}

func (l literal) String() string {
	switch v := l.value().(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	default:
		return fmt.Sprint(v)
	}
}

func makeLiteral(v any) (literal, error) {
	switch v := v.(type) {
	case nil:
		return literal{Kind: "null"}, nil
	case int:
		return literal{Kind: "int64", I: int64(v)}, nil
	case int8:
		return literal{Kind: "int64", I: int64(v)}, nil
	case int16:
		return literal{Kind: "int64", I: int64(v)}, nil
	case int32:
		return literal{Kind: "int64", I: int64(v)}, nil
	case int64:
		return literal{Kind: "int64", I: v}, nil
	case uint8:
		return literal{Kind: "int64", I: int64(v)}, nil
	case uint16:
		return literal{Kind: "int64", I: int64(v)}, nil
	case uint32:
		return literal{Kind: "int64", I: int64(v)}, nil
	case float32:
		return literal{Kind: "float64", F: strconv.FormatFloat(float64(v), 'g', -1, 64)}, nil
	case float64:
		return literal{Kind: "float64", F: strconv.FormatFloat(v, 'g', -1, 64)}, nil
	case string:
		return literal{Kind: "string", S: v}, nil
	case bool:
		return literal{Kind: "bool", B: v}, nil
	}
	return literal{}, fmt.Errorf("%v (%T) cannot be a literal: use an int, float64, string, bool or nil", v, v)
}

// Col refers to the column called name.
func Col(name string) Expr { return Expr{&exprNode{Op: "col", Name: name}} }

// Lit is a constant: an int, float64, string, bool or nil (null).
func Lit(v any) Expr {
	if e, ok := v.(Expr); ok {
		return e
	}
	l, err := makeLiteral(v)
	if err != nil {
		return Expr{&exprNode{Op: "lit", Err: err.Error()}}
	}
	return Expr{&exprNode{Op: "lit", Lit: &l}}
}

func (e Expr) cmp(op kernel.CmpOp, v any) Expr {
	return Expr{&exprNode{Op: "cmp", Cmp: op.String(), Args: []*exprNode{e.n, Lit(v).n}}}
}

// Eq is e == v.
func (e Expr) Eq(v any) Expr { return e.cmp(kernel.Eq, v) }

// Ne is e != v.
func (e Expr) Ne(v any) Expr { return e.cmp(kernel.Ne, v) }

// Lt is e < v.
func (e Expr) Lt(v any) Expr { return e.cmp(kernel.Lt, v) }

// Le is e <= v.
func (e Expr) Le(v any) Expr { return e.cmp(kernel.Le, v) }

// Gt is e > v.
func (e Expr) Gt(v any) Expr { return e.cmp(kernel.Gt, v) }

// Ge is e >= v.
func (e Expr) Ge(v any) Expr { return e.cmp(kernel.Ge, v) }

// And is true where both are true (SQL's three-valued logic with nulls).
func (e Expr) And(o Expr) Expr { return Expr{&exprNode{Op: "and", Args: []*exprNode{e.n, o.n}}} }

// Or is true where either is true.
func (e Expr) Or(o Expr) Expr { return Expr{&exprNode{Op: "or", Args: []*exprNode{e.n, o.n}}} }

// Not negates a bool expression.
func (e Expr) Not() Expr { return Expr{&exprNode{Op: "not", Args: []*exprNode{e.n}}} }

// IsNull is true where e is null.
func (e Expr) IsNull() Expr { return Expr{&exprNode{Op: "isnull", Args: []*exprNode{e.n}}} }

// NotNull is true where e is not null.
func (e Expr) NotNull() Expr { return e.IsNull().Not() }

// IsIn is true where e equals one of values.
func (e Expr) IsIn(values ...any) Expr {
	n := &exprNode{Op: "isin", Args: []*exprNode{e.n}}
	for _, v := range values {
		l, err := makeLiteral(v)
		if err != nil {
			n.Err = err.Error()
			break
		}
		n.Values = append(n.Values, l)
	}
	return Expr{n}
}

func (e Expr) arith(op kernel.ArithOp, v any) Expr {
	return Expr{&exprNode{Op: "arith", Arith: op.String(), Args: []*exprNode{e.n, Lit(v).n}}}
}

// Add is e + v.
func (e Expr) Add(v any) Expr { return e.arith(kernel.Add, v) }

// Sub is e - v.
func (e Expr) Sub(v any) Expr { return e.arith(kernel.Sub, v) }

// Mul is e × v.
func (e Expr) Mul(v any) Expr { return e.arith(kernel.Mul, v) }

// Div is e ÷ v, always float64 (true division, as in pandas).
func (e Expr) Div(v any) Expr { return e.arith(kernel.Div, v) }

// String renders e, as in ((num_clicks > 2) and (area == "north")).
func (e Expr) String() string { return e.n.String() }

func (n *exprNode) String() string {
	switch n.Op {
	case "col":
		return n.Name
	case "lit":
		if n.Lit == nil {
			return "<bad literal>"
		}
		return n.Lit.String()
	case "cmp":
		return "(" + n.Args[0].String() + " " + n.Cmp + " " + n.Args[1].String() + ")"
	case "arith":
		return "(" + n.Args[0].String() + " " + n.Arith + " " + n.Args[1].String() + ")"
	case "and", "or":
		return "(" + n.Args[0].String() + " " + n.Op + " " + n.Args[1].String() + ")"
	case "not":
		return "not " + n.Args[0].String()
	case "isnull":
		return "isnull(" + n.Args[0].String() + ")"
	case "isin":
		vals := make([]string, len(n.Values))
		for i, v := range n.Values {
			vals[i] = v.String()
		}
		return n.Args[0].String() + " in (" + strings.Join(vals, ", ") + ")"
	}
	return n.Op
}

// describe names an operand and its kind for error messages.
func describe(n *exprNode, k kernel.Kind) string {
	return fmt.Sprintf("%s (%s)", n, k)
}

func parseCmp(s string) kernel.CmpOp {
	for op := kernel.Eq; op <= kernel.Ge; op++ {
		if op.String() == s {
			return op
		}
	}
	panic("dataframe: unknown comparison " + s)
}

func parseArith(s string) kernel.ArithOp {
	for op := kernel.Add; op <= kernel.Div; op++ {
		if op.String() == s {
			return op
		}
	}
	panic("dataframe: unknown arithmetic " + s)
}

// kindOf type-checks n against schema and returns the kind of its values.
func (n *exprNode) kindOf(schema *arrow.Schema) (kernel.Kind, error) {
	if n.Err != "" {
		return 0, fmt.Errorf("%s", n.Err)
	}
	switch n.Op {
	case "col":
		f, err := field(schema, n.Name)
		if err != nil {
			return 0, err
		}
		return kernel.KindOf(f.Type)
	case "lit":
		return n.Lit.kind(), nil
	case "cmp":
		a, b, err := kinds2(n, schema)
		if err != nil {
			return 0, err
		}
		num := func(k kernel.Kind) bool { return k == kernel.KindInt || k == kernel.KindFloat }
		op := parseCmp(n.Cmp)
		switch {
		case a == kernel.KindNull || b == kernel.KindNull:
		case num(a) && num(b), a == kernel.KindString && b == kernel.KindString:
		case a == kernel.KindBool && b == kernel.KindBool && (op == kernel.Eq || op == kernel.Ne):
		default:
			return 0, fmt.Errorf("cannot compare %s with %s", describe(n.Args[0], a), describe(n.Args[1], b))
		}
		return kernel.KindBool, nil
	case "and", "or", "not":
		for _, arg := range n.Args {
			k, err := arg.kindOf(schema)
			if err != nil {
				return 0, err
			}
			if k != kernel.KindBool && k != kernel.KindNull {
				return 0, fmt.Errorf("%s needs bool operands, but %s is not", n.Op, describe(arg, k))
			}
		}
		return kernel.KindBool, nil
	case "isnull":
		if _, err := n.Args[0].kindOf(schema); err != nil {
			return 0, err
		}
		return kernel.KindBool, nil
	case "isin":
		k, err := n.Args[0].kindOf(schema)
		if err != nil {
			return 0, err
		}
		for _, v := range n.Values {
			vk := v.kind()
			ok := vk == k || (k == kernel.KindInt || k == kernel.KindFloat) && (vk == kernel.KindInt || vk == kernel.KindFloat)
			if !ok {
				return 0, fmt.Errorf("isin: %s is compared with %s (%s)", describe(n.Args[0], k), v, vk)
			}
		}
		return kernel.KindBool, nil
	case "arith":
		a, b, err := kinds2(n, schema)
		if err != nil {
			return 0, err
		}
		k, err := parseArith(n.Arith).ResultKind(a, b)
		if err != nil {
			return 0, fmt.Errorf("cannot compute %s: %s %s %s", n, describe(n.Args[0], a), n.Arith, describe(n.Args[1], b))
		}
		return k, nil
	}
	return 0, fmt.Errorf("unknown expression %q", n.Op)
}

func kinds2(n *exprNode, schema *arrow.Schema) (kernel.Kind, kernel.Kind, error) {
	a, err := n.Args[0].kindOf(schema)
	if err != nil {
		return 0, 0, err
	}
	b, err := n.Args[1].kindOf(schema)
	return a, b, err
}

// value is an evaluated expression: a column, a scalar, or a mask.
type value struct {
	datum  kernel.Datum
	mask   kernel.Mask
	isMask bool
}

func (v value) asMask(n int) kernel.Mask {
	if v.isMask {
		return v.mask
	}
	return kernel.MaskOf(v.datum, n)
}

// eval evaluates n over rec's rows; with k, the comparisons and arithmetic
// that k has kernels for run on it (a GPU).
func (n *exprNode) eval(rec arrow.Record, k gpu.Kernels) (value, error) {
	rows := int(rec.NumRows())
	switch n.Op {
	case "col":
		i, err := columnIndex(rec.Schema(), n.Name)
		if err != nil {
			return value{}, err
		}
		return value{datum: kernel.Col(rec.Column(i))}, nil
	case "lit":
		return value{datum: kernel.Scalar(n.Lit.value())}, nil
	case "cmp", "arith":
		a, err := n.Args[0].eval(rec, k)
		if err != nil {
			return value{}, err
		}
		b, err := n.Args[1].eval(rec, k)
		if err != nil {
			return value{}, err
		}
		if a.datum.Array == nil && b.datum.Array == nil {
			// Two literals: kernels want a column on one side.
			col := broadcast(a.datum.Scalar, rows)
			defer col.Release()
			a.datum = kernel.Col(col)
		}
		if n.Op == "cmp" {
			if m, ok, err := gpuCompare(k, a.datum, b.datum, parseCmp(n.Cmp)); ok || err != nil {
				return value{mask: m, isMask: true}, err
			}
			m, err := kernel.Compare(a.datum, b.datum, parseCmp(n.Cmp), rows)
			return value{mask: m, isMask: true}, err
		}
		if col, ok, err := gpuArith(k, a.datum, b.datum, parseArith(n.Arith)); ok || err != nil {
			return value{datum: kernel.Col(col)}, err
		}
		col, err := kernel.Arith(a.datum, b.datum, parseArith(n.Arith), rows)
		return value{datum: kernel.Col(col)}, err
	case "and", "or":
		a, err := n.Args[0].eval(rec, k)
		if err != nil {
			return value{}, err
		}
		b, err := n.Args[1].eval(rec, k)
		if err != nil {
			return value{}, err
		}
		if n.Op == "and" {
			return value{mask: kernel.And(a.asMask(rows), b.asMask(rows)), isMask: true}, nil
		}
		return value{mask: kernel.Or(a.asMask(rows), b.asMask(rows)), isMask: true}, nil
	case "not":
		a, err := n.Args[0].eval(rec, k)
		if err != nil {
			return value{}, err
		}
		return value{mask: kernel.Not(a.asMask(rows)), isMask: true}, nil
	case "isnull":
		a, err := n.Args[0].eval(rec, k)
		if err != nil {
			return value{}, err
		}
		if a.isMask {
			return value{mask: kernel.IsNull(kernel.Col(a.mask.Array()), rows), isMask: true}, nil
		}
		return value{mask: kernel.IsNull(a.datum, rows), isMask: true}, nil
	case "isin":
		a, err := n.Args[0].eval(rec, k)
		if err != nil {
			return value{}, err
		}
		vals := make([]any, len(n.Values))
		for i, v := range n.Values {
			vals[i] = v.value()
		}
		d := a.datum
		if a.isMask {
			d = kernel.Col(a.mask.Array())
		}
		m, err := kernel.IsIn(d, vals, rows)
		return value{mask: m, isMask: true}, err
	}
	return value{}, fmt.Errorf("unknown expression %q", n.Op)
}

// evalColumn evaluates n as a column of rec's length (with k as eval).
func (n *exprNode) evalColumn(rec arrow.Record, k gpu.Kernels) (arrow.Array, error) {
	v, err := n.eval(rec, k)
	if err != nil {
		return nil, err
	}
	rows := int(rec.NumRows())
	switch {
	case v.isMask:
		return v.mask.Array(), nil
	case v.datum.Array != nil:
		v.datum.Array.Retain()
		return v.datum.Array, nil
	}
	return broadcast(v.datum.Scalar, rows), nil
}

// broadcast makes a column of rows copies of a scalar.
func broadcast(s any, rows int) arrow.Array {
	switch s := s.(type) {
	case int64:
		vals := make([]int64, rows)
		for i := range vals {
			vals[i] = s
		}
		return kernel.NewInt64(vals, nil)
	case float64:
		vals := make([]float64, rows)
		for i := range vals {
			vals[i] = s
		}
		return kernel.NewFloat64(vals, nil)
	case string:
		dict := kernel.NewString([]int32{0, int32(len(s))}, []byte(s), nil)
		defer dict.Release()
		return kernel.NewDict(make([]int32, rows), dict, nil)
	case bool:
		vals := make([]uint8, rows)
		if s {
			for i := range vals {
				vals[i] = 1
			}
		}
		return kernel.NewBool(vals, nil)
	}
	// The null literal: a float column of nulls.
	return kernel.NewFloat64(make([]float64, rows), make([]byte, (rows+7)/8))
}

// field finds a column by name, or says which columns there are.
func field(schema *arrow.Schema, name string) (arrow.Field, error) {
	i, err := columnIndex(schema, name)
	if err != nil {
		return arrow.Field{}, err
	}
	return schema.Field(i), nil
}

func columnIndex(schema *arrow.Schema, name string) (int, error) {
	if idx := schema.FieldIndices(name); len(idx) > 0 {
		return idx[0], nil
	}
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = f.Name
	}
	return 0, fmt.Errorf("column %q not found; the columns are %s", name, strings.Join(names, ", "))
}

// kindType is the logical column type of a kind.
func kindType(k kernel.Kind) arrow.DataType {
	switch k {
	case kernel.KindInt:
		return kernel.Int64
	case kernel.KindString:
		return kernel.String
	case kernel.KindBool:
		return kernel.Bool
	}
	return kernel.Float64
}

// columns adds the columns n reads to set and returns it.
func (n *exprNode) columns(set setOf) setOf {
	if n.Op == "col" {
		set[n.Name] = true
	}
	for _, a := range n.Args {
		a.columns(set)
	}
	return set
}

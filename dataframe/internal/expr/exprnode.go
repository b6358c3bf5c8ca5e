package expr

// An expression as plans and tasks hold it (Node, serialized as JSON
// in a task's arguments), its literals, and its typing against a schema;
// dataframe/expr.go is the public API that builds them, functions.go the
// table of what each operation does.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/alloc"
	"github.com/duskdata/dusk/internal/kernel"
)

// Node is the serialized form of an expression: tasks carry it as data.
type Node struct {
	Op     string    `json:"op"`             // a name in functions
	Name   string    `json:"name,omitempty"` // col: the column
	Lit    *Literal  `json:"lit,omitempty"`
	Args   []*Node   `json:"args,omitempty"`
	Values []Literal `json:"values,omitempty"` // isin: the set
	Str    []string  `json:"str,omitempty"`    // text options: a pattern, a separator, a type
	Int    []int64   `json:"int,omitempty"`    // whole-number options: digits, start and length, an index
	Err    string    `json:"err,omitempty"`    // what could not be built
}

// Literal is a typed constant; floats travel as text so NaN and ±Inf survive.
// Dates are days since 1970-01-01, timestamps and durations nanoseconds
// (a timestamp's zone in S), months a count of calendar months.
type Literal struct {
	Kind string `json:"kind"` // int64 float64 string bool null date timestamp duration months
	I    int64  `json:"i,omitempty"`
	F    string `json:"f,omitempty"`
	S    string `json:"s,omitempty"`
	B    bool   `json:"b,omitempty"`
}

// Value is the literal as a Go value: int64, float64, string, bool or nil.
func (l Literal) Value() any {
	switch l.Kind {
	case "int64", "date", "timestamp", "duration", "months":
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

// LogicalKind is the literal's kind, named as kernel's table names it (months,
// which no column holds, are KindNull).
func (l Literal) LogicalKind() kernel.Kind {
	k, _ := kernel.KindNamed(l.Kind)
	return k
}

// Type is the literal's type: its kind's, with a timestamp's zone.
func (l Literal) Type() arrow.DataType {
	switch l.Kind {
	case "timestamp":
		return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: l.S}
	case "months":
		return arrow.FixedWidthTypes.MonthInterval
	}
	return TypeOfKind(l.LogicalKind())
}

// String writes the literal as expressions print it.
func (l Literal) String() string {
	switch l.Kind {
	case "date":
		return "date " + string(kernel.AppendDate(nil, l.I))
	case "timestamp":
		loc, _ := kernel.Location(l.S)
		return "timestamp " + kernel.ToTime(l.I, arrow.Nanosecond).In(loc).Format(time.RFC3339Nano)
	case "duration":
		return time.Duration(l.I).String()
	case "months":
		return fmt.Sprintf("%d months", l.I)
	}
	switch v := l.Value().(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	default:
		return fmt.Sprint(v)
	}
}

// MakeLiteral makes a Go value a literal, or says which values can be one.
func MakeLiteral(v any) (Literal, error) {
	switch v := v.(type) {
	case nil:
		return Literal{Kind: "null"}, nil
	case int:
		return Literal{Kind: "int64", I: int64(v)}, nil
	case int8:
		return Literal{Kind: "int64", I: int64(v)}, nil
	case int16:
		return Literal{Kind: "int64", I: int64(v)}, nil
	case int32:
		return Literal{Kind: "int64", I: int64(v)}, nil
	case int64:
		return Literal{Kind: "int64", I: v}, nil
	case uint8:
		return Literal{Kind: "int64", I: int64(v)}, nil
	case uint16:
		return Literal{Kind: "int64", I: int64(v)}, nil
	case uint32:
		return Literal{Kind: "int64", I: int64(v)}, nil
	case float32:
		return Literal{Kind: "float64", F: strconv.FormatFloat(float64(v), 'g', -1, 64)}, nil
	case float64:
		return Literal{Kind: "float64", F: strconv.FormatFloat(v, 'g', -1, 64)}, nil
	case string:
		return Literal{Kind: "string", S: v}, nil
	case bool:
		return Literal{Kind: "bool", B: v}, nil
	case time.Time:
		tz := ""
		if v.Location() != time.Local || time.Local == time.UTC {
			tz = v.Location().String()
		}
		if _, err := kernel.Location(tz); err != nil || tz == "Local" {
			tz = "UTC"
		}
		return Literal{Kind: "timestamp", I: v.UnixNano(), S: tz}, nil
	case time.Duration:
		return Literal{Kind: "duration", I: int64(v)}, nil
	}
	return Literal{}, fmt.Errorf("%v (%T) cannot be a literal: use an int, float64, string, bool, time.Time, time.Duration or nil", v, v)
}

// Col is a reference to the named column.
func Col(name string) *Node { return &Node{Op: "col", Name: name} }

// Call is the operation op over args.
func Call(op string, args ...*Node) *Node { return &Node{Op: op, Args: args} }

// Lit is the literal of a Go value; a value that cannot be one makes a
// node holding the error, which typing reports.
func Lit(v any) *Node {
	l, err := MakeLiteral(v)
	if err != nil {
		return &Node{Op: "lit", Err: err.Error()}
	}
	return &Node{Op: "lit", Lit: &l}
}

// String renders n, as in ((num_clicks > 2) and (area == "north")).
func (n *Node) String() string {
	f, ok := functions[n.Op]
	if !ok {
		return n.Op
	}
	args := make([]string, len(n.Args))
	for i, a := range n.Args {
		args[i] = a.String()
	}
	return f.format(n, args)
}

// Describe names an operand and its type for error messages.
func Describe(n *Node, t arrow.DataType) string {
	return fmt.Sprintf("%s (%s)", n, TypeName(t))
}

// TypeName names an expression's type for users.
func TypeName(t arrow.DataType) string {
	if t.ID() == arrow.NULL {
		return "null"
	}
	return kernel.TypeName(t)
}

// TypeOf type-checks n against schema and returns the type of its values.
func (n *Node) TypeOf(schema *arrow.Schema) (arrow.DataType, error) {
	if n.Err != "" {
		return nil, fmt.Errorf("%s", n.Err)
	}
	f, ok := functions[n.Op]
	if !ok {
		return nil, fmt.Errorf("unknown expression %q", n.Op)
	}
	if len(n.Args) < f.arity || !f.variadic && len(n.Args) != f.arity {
		return nil, fmt.Errorf("%s takes %d operands, not %d", n.Op, f.arity, len(n.Args))
	}
	in := make([]arrow.DataType, len(n.Args))
	for i, a := range n.Args {
		t, err := a.TypeOf(schema)
		if err != nil {
			return nil, err
		}
		in[i] = t
	}
	return f.typeOf(&typeCall{n: n, schema: schema}, in)
}

// KindOf is the kernels' kind of n's values.
func (n *Node) KindOf(schema *arrow.Schema) (kernel.Kind, error) {
	t, err := n.TypeOf(schema)
	if err != nil {
		return 0, err
	}
	return kernel.KindOf(t)
}

// value is an evaluated expression: a column, a scalar, or a mask, and its
// type (as the function table's type rule gave it).
type value struct {
	datum  kernel.Datum
	mask   kernel.Mask
	isMask bool
	typ    arrow.DataType
}

// AsMask is a boolean value as a mask of n rows.
func (v value) AsMask(n int) kernel.Mask {
	if v.isMask {
		return v.mask
	}
	return kernel.MaskOf(v.datum, n)
}

// asDatum reads v as a column or scalar; a mask becomes a bool column.
func (v value) asDatum() kernel.Datum {
	if v.isMask {
		return kernel.Col(v.mask.Array())
	}
	return v.datum
}

// Eval evaluates n over rec's rows; with k, the comparisons and arithmetic
// that k has kernels for run on it (a GPU).
func (n *Node) Eval(rec arrow.Record, k gpu.Kernels) (value, error) {
	f, ok := functions[n.Op]
	if !ok {
		return value{}, fmt.Errorf("unknown expression %q", n.Op)
	}
	in := make([]value, len(n.Args))
	types := make([]arrow.DataType, len(n.Args))
	for i, a := range n.Args {
		v, err := a.Eval(rec, k)
		if err != nil {
			return value{}, err
		}
		in[i], types[i] = v, v.typ
	}
	t, err := f.typeOf(&typeCall{n: n, schema: rec.Schema()}, types)
	if err != nil {
		return value{}, err
	}
	v, err := f.eval(&evalCall{n: n, rec: rec, rows: int(rec.NumRows()), gpu: k, out: t}, in)
	v.typ = t
	return v, err
}

// EvalColumn evaluates n as a column of rec's length (with k as eval).
func (n *Node) EvalColumn(rec arrow.Record, k gpu.Kernels) (arrow.Array, error) {
	v, err := n.Eval(rec, k)
	if err != nil {
		return nil, err
	}
	rows := int(rec.NumRows())
	switch {
	case v.isMask:
		return v.mask.Array(), nil
	case v.datum.Array != nil:
		if col := Retype(v.datum.Array, v.typ); col != v.datum.Array {
			return col, nil
		}
		v.datum.Array.Retain()
		return v.datum.Array, nil
	}
	return Retype(broadcast(v.datum.Scalar, rows), v.typ), nil
}

// broadcast makes a column of rows copies of a scalar.
func broadcast(s any, rows int) arrow.Array {
	switch s := s.(type) {
	case int64:
		if s == 0 { // Frame.Agg's hidden key: shared zeros, nothing cleared
			return kernel.NewInt64(alloc.Zeros[int64](rows), nil)
		}
		vals := alloc.NoZeroOf[int64](rows)
		for i := range vals {
			vals[i] = s
		}
		return kernel.NewInt64(vals, nil)
	case float64:
		if math.Float64bits(s) == 0 {
			return kernel.NewFloat64(alloc.Zeros[float64](rows), nil)
		}
		vals := alloc.NoZeroOf[float64](rows)
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
	return kernel.Nulls(kernel.KindFloat, rows)
}

// Field finds a column by name, or says which columns there are.
func Field(schema *arrow.Schema, name string) (arrow.Field, error) {
	i, err := ColumnIndex(schema, name)
	if err != nil {
		return arrow.Field{}, err
	}
	return schema.Field(i), nil
}

// ColumnIndex is the index of the column named name, or says which
// columns there are.
func ColumnIndex(schema *arrow.Schema, name string) (int, error) {
	if idx := schema.FieldIndices(name); len(idx) > 0 {
		return idx[0], nil
	}
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = f.Name
	}
	return 0, fmt.Errorf("column %q not found; the columns are %s", name, strings.Join(names, ", "))
}

// Columns adds the columns n reads to set and returns it.
func (n *Node) Columns(set map[string]bool) map[string]bool {
	if n.Op == "col" {
		set[n.Name] = true
	}
	for _, a := range n.Args {
		a.Columns(set)
	}
	return set
}

// Fold evaluates once, at plan time, every part of n whose operands are all
// literals, such as Date("1998-12-01").Sub(Days(90)): the tasks then compare
// columns with a constant, and a comparison with one can be pushed into a
// file reader. A part that fails to evaluate is kept, to fail as before.
func Fold(n *Node) *Node {
	if n == nil || n.Op == "lit" || n.Op == "col" || n.Err != "" || len(n.Args) == 0 {
		return n
	}
	args := make([]*Node, len(n.Args))
	changed, constant := false, true
	for i, a := range n.Args {
		args[i] = Fold(a)
		changed = changed || args[i] != a
		constant = constant && args[i].Op == "lit" && args[i].Err == "" && args[i].Lit != nil
	}
	if changed {
		c := *n
		c.Args = args
		n = &c
	}
	if !constant {
		return n
	}
	rec := array.NewRecord(arrow.NewSchema(nil, nil), nil, 1)
	defer rec.Release()
	v, err := n.Eval(rec, nil)
	if err != nil {
		return n
	}
	if l, ok := literalOf(v); ok {
		return &Node{Op: "lit", Lit: &l}
	}
	return n
}

// literalOf reads a value of one row back as a literal, for the types
// literals have; ok is false for others.
func literalOf(v value) (Literal, bool) {
	if v.isMask {
		return Literal{}, false
	}
	s := v.datum.Scalar
	if a := v.datum.Array; a != nil {
		if a.Len() != 1 || a.IsNull(0) {
			return Literal{}, false
		}
		switch a := a.(type) {
		case *array.Int64:
			s = a.Value(0)
		case *array.Date32:
			s = int64(a.Value(0))
		case *array.Float64:
			s = a.Value(0)
		case *array.String:
			s = a.Value(0)
		case *array.Boolean:
			s = a.Value(0)
		default:
			return Literal{}, false
		}
	}
	switch s := s.(type) {
	case nil:
		return Literal{}, false
	case int64:
		switch v.typ.ID() {
		case arrow.INT64:
			return Literal{Kind: "int64", I: s}, true
		case arrow.DATE32:
			return Literal{Kind: "date", I: s}, true
		}
	case float64:
		if v.typ.ID() == arrow.FLOAT64 {
			l, err := MakeLiteral(s)
			return l, err == nil
		}
	case string:
		if v.typ.ID() == arrow.STRING {
			return Literal{Kind: "string", S: s}, true
		}
	case bool:
		if v.typ.ID() == arrow.BOOL {
			return Literal{Kind: "bool", B: s}, true
		}
	}
	return Literal{}, false
}

package dataframe

import (
	"time"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// Expr is an expression over a frame's columns, such as
// Col("num_clicks").Gt(2).And(Col("area").IsIn("north", "south")). Methods
// that take an operand accept an Expr or a Go value (int, float64, string,
// bool, nil), which becomes a literal. Every operation an Expr can hold is
// described once, in the table of dataframe/internal/expr/functions.go.
type Expr struct{ n *expr.Node }

// Date is the date s, written 2006-01-02, as a literal.
func Date(s string) Expr {
	days, err := kernel.ParseDate(s)
	if err != nil {
		return Expr{&expr.Node{Op: "lit", Err: "Date: " + err.Error()}}
	}
	return Expr{&expr.Node{Op: "lit", Lit: &expr.Literal{Kind: "date", I: days}}}
}

// Days is a duration of n days, to add to dates and timestamps.
func Days(n int) Expr { return Lit(time.Duration(n) * 24 * time.Hour) }

// Months is n calendar months, to add to dates and timestamps (Jan 31 plus
// one month is the last day of February, as pandas' DateOffset).
func Months(n int) Expr {
	return Expr{&expr.Node{Op: "lit", Lit: &expr.Literal{Kind: "months", I: int64(n)}}}
}

// Col refers to the column called name.
func Col(name string) Expr { return Expr{expr.Col(name)} }

// Lit is a constant: an int, float64, string, bool or nil (null).
func Lit(v any) Expr {
	if e, ok := v.(Expr); ok {
		return e
	}
	return Expr{expr.Lit(v)}
}

func (e Expr) call(op string, operands ...any) Expr {
	args := []*expr.Node{e.n}
	for _, o := range operands {
		args = append(args, Lit(o).n)
	}
	return Expr{expr.Call(op, args...)}
}

// Eq is e == v.
func (e Expr) Eq(v any) Expr { return e.call("==", v) }

// Ne is e != v.
func (e Expr) Ne(v any) Expr { return e.call("!=", v) }

// Lt is e < v.
func (e Expr) Lt(v any) Expr { return e.call("<", v) }

// Le is e <= v.
func (e Expr) Le(v any) Expr { return e.call("<=", v) }

// Gt is e > v.
func (e Expr) Gt(v any) Expr { return e.call(">", v) }

// Ge is e >= v.
func (e Expr) Ge(v any) Expr { return e.call(">=", v) }

// Between is lo <= e <= hi, both ends included (as SQL's BETWEEN).
func (e Expr) Between(lo, hi any) Expr { return e.Ge(lo).And(e.Le(hi)) }

// And is true where both are true (SQL's three-valued logic with nulls).
func (e Expr) And(o Expr) Expr { return e.call("and", o) }

// Or is true where either is true.
func (e Expr) Or(o Expr) Expr { return e.call("or", o) }

// Not negates a bool expression.
func (e Expr) Not() Expr { return e.call("not") }

// IsNull is true where e is null.
func (e Expr) IsNull() Expr { return e.call("isnull") }

// NotNull is true where e is not null.
func (e Expr) NotNull() Expr { return e.IsNull().Not() }

// IsNaN is true where a float is NaN (false for other numbers, null where e
// is null).
func (e Expr) IsNaN() Expr { return e.call("isnan") }

// IsIn is true where e equals one of values (null where e is null): on a
// date or timestamp column, values may be ISO 8601 strings, time.Time and
// Date(...), as comparisons take them.
func (e Expr) IsIn(values ...any) Expr {
	n := expr.Call("isin", e.n)
	for _, v := range values {
		if x, ok := v.(Expr); ok && x.n.Op == "lit" { // Date("1994-01-01"), Days(n)
			if x.n.Err != "" {
				n.Err = x.n.Err
				break
			}
			n.Values = append(n.Values, *x.n.Lit)
			continue
		}
		l, err := expr.MakeLiteral(v)
		if err != nil {
			n.Err = err.Error()
			break
		}
		n.Values = append(n.Values, l)
	}
	return Expr{n}
}

// Add is e + v.
func (e Expr) Add(v any) Expr { return e.call("+", v) }

// Sub is e - v.
func (e Expr) Sub(v any) Expr { return e.call("-", v) }

// Mul is e × v.
func (e Expr) Mul(v any) Expr { return e.call("*", v) }

// Div is e ÷ v, always float64 (true division, as in pandas).
func (e Expr) Div(v any) Expr { return e.call("/", v) }

// Mod is the remainder of e ÷ v with the sign of v, as Python's %: int64 for
// two ints (null where v is 0), else float64.
func (e Expr) Mod(v any) Expr { return e.call("mod", v) }

// Pow is e raised to the power v, as float64.
func (e Expr) Pow(v any) Expr { return e.call("pow", v) }

// Neg is -e.
func (e Expr) Neg() Expr { return e.call("neg") }

// Abs is |e|.
func (e Expr) Abs() Expr { return e.call("abs") }

// Sqrt is the square root of e, as float64 (NaN below 0).
func (e Expr) Sqrt() Expr { return e.call("sqrt") }

// Log is the natural logarithm of e, as float64.
func (e Expr) Log() Expr { return e.call("log") }

// Exp is e to the power e, as float64.
func (e Expr) Exp() Expr { return e.call("exp") }

// Floor rounds down; an int stays as it is.
func (e Expr) Floor() Expr { return e.call("floor") }

// Ceil rounds up; an int stays as it is.
func (e Expr) Ceil() Expr { return e.call("ceil") }

// Round rounds to digits decimal places, halves away from zero; negative
// digits round to tens, hundreds...
func (e Expr) Round(digits int) Expr {
	x := e.call("round")
	x.n.Int = []int64{int64(digits)}
	return x
}

// FillNull replaces nulls with v (an Expr or a literal).
func (e Expr) FillNull(v any) Expr { return Coalesce(e, v) }

// Coalesce is, row by row, the first of its operands that is not null.
func Coalesce(first any, rest ...any) Expr {
	return Expr{expr.Call("coalesce", operands(append([]any{first}, rest...))...)}
}

// operands makes each value an expression's node (a literal where it is
// not an Expr).
func operands(vals []any) []*expr.Node {
	out := make([]*expr.Node, len(vals))
	for i, v := range vals {
		out[i] = Lit(v).n
	}
	return out
}

// Cast converts e to the type t (Int64, Float64, String, Bool, Date32,
// Timestamp(unit, tz), Decimal(p, s), or an arrow type). It is strict: a value that does not convert fails the computation with an error
// naming the value, the column and the row; TryCast makes it null instead.
func (e Expr) Cast(t arrow.DataType) Expr { return e.cast("cast", t) }

// TryCast is Cast with nulls for values that do not convert (Polars'
// strict=False, Spark's try_cast).
func (e Expr) TryCast(t arrow.DataType) Expr { return e.cast("try_cast", t) }

func (e Expr) cast(op string, t arrow.DataType) Expr {
	x := e.call(op)
	if t == nil {
		x.n.Err = op + ": no type given"
		return x
	}
	x.n.Str = []string{t.String()}
	return x
}

// When starts a conditional: When(c1).Then(x).When(c2).Then(y).Otherwise(z)
// is x where c1 is true, else y where c2 is, else z (SQL's CASE WHEN; a null
// condition counts as false).
func When(cond Expr) WhenClause { return WhenClause{cond: cond.n} }

// WhenClause is a condition waiting for its value.
type WhenClause struct {
	args []*expr.Node // earlier conditions and values
	cond *expr.Node
}

// Then gives the value where the condition holds.
func (w WhenClause) Then(v any) Conditional {
	return Conditional{args: append(append(append([]*expr.Node(nil), w.args...), w.cond), Lit(v).n)}
}

// Conditional is a chain of conditions and values; finish it with Otherwise.
type Conditional struct{ args []*expr.Node }

// When adds a condition, tried where the earlier ones were not true.
func (c Conditional) When(cond Expr) WhenClause { return WhenClause{args: c.args, cond: cond.n} }

// Otherwise gives the value where no condition holds (nil: null).
func (c Conditional) Otherwise(v any) Expr {
	return Expr{expr.Call("when", append(append([]*expr.Node(nil), c.args...), Lit(v).n)...)}
}

// Str gives e's string operations (Polars' .str namespace).
func (e Expr) Str() StrExpr { return StrExpr{e} }

// StrExpr holds the string operations of an expression.
type StrExpr struct{ e Expr }

func (s StrExpr) with(op string, str []string, ints []int64) Expr {
	x := s.e.call(op)
	x.n.Str, x.n.Int = str, ints
	return x
}

// Contains is true where the string holds sub (a literal, not a pattern).
func (s StrExpr) Contains(sub string) Expr { return s.with("str.contains", []string{sub}, nil) }

// Matches is true where the RE2 regular expression pattern matches part of
// the string (anchor it with ^ and $ to match the whole).
func (s StrExpr) Matches(pattern string) Expr { return s.with("str.matches", []string{pattern}, nil) }

// Like is SQL's LIKE: % stands for any run of characters, _ for one; the
// whole string must match.
func (s StrExpr) Like(pattern string) Expr { return s.with("str.like", []string{pattern}, nil) }

// StartsWith is true where the string begins with prefix.
func (s StrExpr) StartsWith(prefix string) Expr {
	return s.with("str.starts_with", []string{prefix}, nil)
}

// EndsWith is true where the string ends with suffix.
func (s StrExpr) EndsWith(suffix string) Expr { return s.with("str.ends_with", []string{suffix}, nil) }

// Lower is the string in lower case.
func (s StrExpr) Lower() Expr { return s.with("str.lower", nil, nil) }

// Upper is the string in upper case.
func (s StrExpr) Upper() Expr { return s.with("str.upper", nil, nil) }

// Len is the number of characters (code points), as pandas' str.len.
func (s StrExpr) Len() Expr { return s.with("str.len", nil, nil) }

// Slice is length characters from start (counted from 0; a negative start
// counts from the end); a negative length takes the rest.
func (s StrExpr) Slice(start, length int) Expr {
	return s.with("str.slice", nil, []int64{int64(start), int64(length)})
}

// Replace replaces every occurrence of old (a literal) with new.
func (s StrExpr) Replace(old, new string) Expr {
	return s.with("str.replace", []string{old, new}, nil)
}

// Strip removes leading and trailing white space.
func (s StrExpr) Strip() Expr { return s.with("str.strip", nil, nil) }

// Split cuts the string at each sep; Get picks a piece.
func (s StrExpr) Split(sep string) SplitExpr { return SplitExpr{s.e, sep} }

// SplitExpr is a string split at a separator.
type SplitExpr struct {
	e   Expr
	sep string
}

// Get is piece i of the split (a negative i counts from the end); null
// where there are too few pieces.
func (s SplitExpr) Get(i int) Expr {
	return s.e.Str().with("str.split_get", []string{s.sep}, []int64{int64(i)})
}

// ConcatStr joins its operands' strings end to end, row by row; numbers and
// bools are formatted first; a null operand gives null.
func ConcatStr(parts ...any) Expr {
	if len(parts) == 0 {
		return Expr{&expr.Node{Op: "concat_str", Err: "ConcatStr: nothing to join"}}
	}
	return Expr{expr.Call("concat_str", operands(parts)...)}
}

// ColumnName reports whether e is a plain reference to a column (Col),
// and which.
func (e Expr) ColumnName() (string, bool) {
	if e.n != nil && e.n.Op == "col" {
		return e.n.Name, true
	}
	return "", false
}

// Alias names e where a name is wanted for it (a group key of
// GroupByExpr); it computes as e does.
func (e Expr) Alias(name string) Expr {
	return Expr{&expr.Node{Op: "alias", Name: name, Args: []*expr.Node{e.n}}}
}

// String renders e, as in ((num_clicks > 2) and (area == "north")).
func (e Expr) String() string { return e.n.String() }

package ops

import (
	"slices"
	"testing"

	"github.com/duskdata/dusk/dataframe/internal/expr"
)

// x builds expressions for the cases as dataframe.Expr does.
type x struct{ n *expr.Node }

func col(name string) x { return x{expr.Col(name)} }
func lit(v any) x       { return x{expr.Lit(v)} }

func (a x) op(o string, b any) x {
	bx, ok := b.(x)
	if !ok {
		bx = lit(b)
	}
	return x{expr.Call(o, a.n, bx.n)}
}
func (a x) Ge(b any) x           { return a.op(">=", b) }
func (a x) Le(b any) x           { return a.op("<=", b) }
func (a x) Lt(b any) x           { return a.op("<", b) }
func (a x) Gt(b any) x           { return a.op(">", b) }
func (a x) Eq(b any) x           { return a.op("==", b) }
func (a x) Add(b any) x          { return a.op("+", b) }
func (a x) And(b x) x            { return a.op("and", b) }
func (a x) Or(b x) x             { return a.op("or", b) }
func (a x) Between(lo, hi any) x { return a.Ge(lo).And(a.Le(hi)) }
func (a x) IsNull() x            { return x{expr.Call("isnull", a.n)} }

// TestColumnTests checks which parts of a source's predicate a reader tests
// as it decodes: conjuncts of one column, those of one column joined.
func TestColumnTests(t *testing.T) {
	d, q, p, s := col("d"), col("q"), col("p"), col("s")
	cases := []struct {
		name  string
		pred  x
		tests []string // each test, printed
		rest  string   // "": none
	}{
		{"q6: three columns", d.Ge(10).And(d.Lt(20)).And(p.Between(1, 2)).And(q.Lt(24)),
			[]string{"((d >= 10) and (d < 20))", "((p >= 1) and (p <= 2))", "(q < 24)"}, ""},
		{"a column the rest reads", d.Gt(1).And(d.Add(q).Gt(5)), []string{"(d > 1)"}, "((d + q) > 5)"},
		{"an or of one column", s.Eq("a").Or(s.IsNull()), []string{`((s == "a") or isnull(s))`}, ""},
		{"an or of two", s.Eq("a").Or(q.Gt(1)), nil, `((s == "a") or (q > 1))`},
		{"a constant", lit(true).And(d.Gt(1)), []string{"(d > 1)"}, "true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tests, rest := columnTests(c.pred.n)
			var got []string
			for _, ct := range tests {
				if cols := ct.pred.Columns(SetOf{}); len(cols) != 1 || !cols[ct.Col] {
					t.Errorf("test of %s reads %v", ct.Col, cols)
				}
				got = append(got, ct.pred.String())
			}
			if !slices.Equal(got, c.tests) {
				t.Errorf("tests %q, want %q", got, c.tests)
			}
			gotRest := ""
			if rest != nil {
				gotRest = rest.String()
			}
			if gotRest != c.rest {
				t.Errorf("rest %q, want %q", gotRest, c.rest)
			}
		})
	}
}

package dataframe

import (
	"slices"
	"testing"
)

// TestColumnTests checks which parts of a source's predicate a reader tests
// as it decodes: conjuncts of one column, those of one column joined.
func TestColumnTests(t *testing.T) {
	d, q, p, s := Col("d"), Col("q"), Col("p"), Col("s")
	cases := []struct {
		name  string
		pred  Expr
		tests []string // each test, printed
		rest  string   // "": none
	}{
		{"q6: three columns", d.Ge(10).And(d.Lt(20)).And(p.Between(1, 2)).And(q.Lt(24)),
			[]string{"((d >= 10) and (d < 20))", "((p >= 1) and (p <= 2))", "(q < 24)"}, ""},
		{"a column the rest reads", d.Gt(1).And(d.Add(q).Gt(5)), []string{"(d > 1)"}, "((d + q) > 5)"},
		{"an or of one column", s.Eq("a").Or(s.IsNull()), []string{`((s == "a") or isnull(s))`}, ""},
		{"an or of two", s.Eq("a").Or(q.Gt(1)), nil, `((s == "a") or (q > 1))`},
		{"a constant", Lit(true).And(d.Gt(1)), []string{"(d > 1)"}, "true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tests, rest := columnTests(c.pred.n)
			var got []string
			for _, ct := range tests {
				if cols := ct.pred.Columns(setOf{}); len(cols) != 1 || !cols[ct.col] {
					t.Errorf("test of %s reads %v", ct.col, cols)
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

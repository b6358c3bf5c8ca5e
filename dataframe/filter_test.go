package dataframe_test

import (
	"testing"

	"github.com/duskdata/dusk/dataframe"
)

// filterCase is a predicate and its reference, row by row.
type filterCase struct {
	name string
	pred dataframe.Expr
	ref  func(r testRow) tri
}

var (
	col = dataframe.Col
	lit = dataframe.Lit
)

func filterCases() []filterCase {
	var cases []filterCase
	// The six comparisons, each over every column type, with a literal on
	// either side.
	for _, op := range []string{"==", "!=", "<", "<=", ">", ">="} {
		op := op
		cmpExpr := func(e dataframe.Expr, v any) dataframe.Expr {
			switch op {
			case "==":
				return e.Eq(v)
			case "!=":
				return e.Ne(v)
			case "<":
				return e.Lt(v)
			case "<=":
				return e.Le(v)
			case ">":
				return e.Gt(v)
			}
			return e.Ge(v)
		}
		cases = append(cases,
			filterCase{"I " + op + " 3", cmpExpr(col("I"), 3),
				func(r testRow) tri { return cmp3(r.I, ptr(int64(3)), op) }},
			filterCase{"I " + op + " 2.5 (int with float)", cmpExpr(col("I"), 2.5),
				func(r testRow) tri { return cmp3(asFloat(r.I), ptr(2.5), op) }},
			filterCase{"F " + op + " 10 (float with int)", cmpExpr(col("F"), 10),
				func(r testRow) tri { return cmp3(r.F, ptr(10.0), op) }},
			filterCase{"F " + op + " -1.125", cmpExpr(col("F"), lit(-1.125)),
				func(r testRow) tri { return cmp3(r.F, ptr(-1.125), op) }},
			filterCase{"lit 3 " + op + " I", cmpExpr(lit(3), col("I")),
				func(r testRow) tri { return cmp3(ptr(int64(3)), r.I, op) }},
			filterCase{"S " + op + " \"banana\"", cmpExpr(col("S"), "banana"),
				func(r testRow) tri { return cmp3(r.S, ptr("banana"), op) }},
			filterCase{"T " + op + " \"banana\" (few distinct)", cmpExpr(col("T"), "banana"),
				func(r testRow) tri { return cmp3(r.T, ptr("banana"), op) }},
			filterCase{"lit \"m\" " + op + " K", cmpExpr(lit("m"), col("K")),
				func(r testRow) tri { return cmp3(ptr("m"), r.K, op) }},
			filterCase{"I " + op + " J (columns)", cmpExpr(col("I"), col("J")),
				func(r testRow) tri { return cmp3(r.I, r.J, op) }},
			filterCase{"I " + op + " G (int column with float column)", cmpExpr(col("I"), col("G")),
				func(r testRow) tri { return cmp3(asFloat(r.I), r.G, op) }},
			filterCase{"F " + op + " G (columns)", cmpExpr(col("F"), col("G")),
				func(r testRow) tri { return cmp3(r.F, r.G, op) }},
			filterCase{"S " + op + " T (plain with dictionary strings)", cmpExpr(col("S"), col("T")),
				func(r testRow) tri { return cmp3(r.S, r.T, op) }},
			filterCase{"K " + op + " T (columns)", cmpExpr(col("K"), col("T")),
				func(r testRow) tri { return cmp3(r.K, r.T, op) }},
		)
	}
	boolEq := func(a *bool, b bool) tri {
		if a == nil {
			return triNull
		}
		return truth(*a == b)
	}
	cases = append(cases,
		filterCase{"B (a bool column)", col("B"), func(r testRow) tri { return boolEq(r.B, true) }},
		filterCase{"B == true", col("B").Eq(true), func(r testRow) tri { return boolEq(r.B, true) }},
		filterCase{"B != true", col("B").Ne(true), func(r testRow) tri { return not3(boolEq(r.B, true)) }},
		filterCase{"not B", col("B").Not(), func(r testRow) tri { return boolEq(r.B, false) }},
		filterCase{"lit true", lit(true), func(testRow) tri { return triTrue }},
		filterCase{"lit false", lit(false), func(testRow) tri { return triFalse }},
		filterCase{"I == null", col("I").Eq(nil), func(testRow) tri { return triNull }},
		filterCase{"lit 1 < lit 2", lit(1).Lt(2), func(testRow) tri { return triTrue }},
		filterCase{"lit 2 == lit 2.0", lit(2).Eq(2.0), func(testRow) tri { return triTrue }},
		filterCase{"lit \"b\" < lit \"a\"", lit("b").Lt("a"), func(testRow) tri { return triFalse }},
		filterCase{"lit null < lit 1", lit(nil).Lt(1), func(testRow) tri { return triNull }},

		// Three-valued logic.
		filterCase{"I > 0 and S < \"m\"", col("I").Gt(0).And(col("S").Lt("m")),
			func(r testRow) tri { return and3(cmp3(r.I, ptr(int64(0)), ">"), cmp3(r.S, ptr("m"), "<")) }},
		filterCase{"I > 0 or F < 0", col("I").Gt(0).Or(col("F").Lt(0)),
			func(r testRow) tri { return or3(cmp3(r.I, ptr(int64(0)), ">"), cmp3(r.F, ptr(0.0), "<")) }},
		filterCase{"not (I > 0)", col("I").Gt(0).Not(),
			func(r testRow) tri { return not3(cmp3(r.I, ptr(int64(0)), ">")) }},
		filterCase{"not (I > 0 and B)", col("I").Gt(0).And(col("B")).Not(),
			func(r testRow) tri { return not3(and3(cmp3(r.I, ptr(int64(0)), ">"), boolEq(r.B, true))) }},
		filterCase{"(I > 0 or B) and not (K == \"north\")", col("I").Gt(0).Or(col("B")).And(col("K").Eq("north").Not()),
			func(r testRow) tri {
				return and3(or3(cmp3(r.I, ptr(int64(0)), ">"), boolEq(r.B, true)), not3(cmp3(r.K, ptr("north"), "==")))
			}},
		filterCase{"B or lit null", col("B").Or(lit(nil)),
			func(r testRow) tri { return or3(boolEq(r.B, true), triNull) }},
		filterCase{"B and lit null", col("B").And(lit(nil)),
			func(r testRow) tri { return and3(boolEq(r.B, true), triNull) }},
		// Chains of And over a column without nulls (ID), with one with
		// nulls between, an int column between float constants, and a
		// constant expression.
		filterCase{"ID >= 100 and ID < 300 and F > 0", col("ID").Ge(100).And(col("ID").Lt(300)).And(col("F").Gt(0)),
			func(r testRow) tri {
				return and3(and3(truth(r.ID >= 100), truth(r.ID < 300)), cmp3(r.F, ptr(0.0), ">"))
			}},
		filterCase{"ID > 5 and I > 0 and ID != 7", col("ID").Gt(5).And(col("I").Gt(0)).And(col("ID").Ne(7)),
			func(r testRow) tri {
				return and3(and3(truth(r.ID > 5), cmp3(r.I, ptr(int64(0)), ">")), truth(r.ID != 7))
			}},
		filterCase{"ID between 2.5 and 400.0", col("ID").Between(2.5, 400.0),
			func(r testRow) tri { return truth(float64(r.ID) >= 2.5 && float64(r.ID) <= 400) }},
		filterCase{"ID > 3 and 50 + 5 > ID", col("ID").Gt(3).And(lit(50).Add(5).Gt(col("ID"))),
			func(r testRow) tri { return truth(r.ID > 3 && 55 > r.ID) }},
		filterCase{"(I > J) or (I <= J) (null where either is)", col("I").Gt(col("J")).Or(col("I").Le(col("J"))),
			func(r testRow) tri { return or3(cmp3(r.I, r.J, ">"), cmp3(r.I, r.J, "<=")) }},

		// IsIn.
		filterCase{"I in (1, 2, 3, 4.0, 2.5)", col("I").IsIn(1, 2, 3, 4.0, 2.5),
			func(r testRow) tri {
				if r.I == nil {
					return triNull
				}
				v := *r.I
				return truth(v == 1 || v == 2 || v == 3 || v == 4)
			}},
		filterCase{"F in (0.5, -3, 12.125)", col("F").IsIn(0.5, -3, 12.125),
			func(r testRow) tri {
				if r.F == nil {
					return triNull
				}
				v := *r.F
				return truth(v == 0.5 || v == -3 || v == 12.125)
			}},
		filterCase{"T in (\"apple\", \"Zebra\")", col("T").IsIn("apple", "Zebra"),
			func(r testRow) tri {
				if r.T == nil {
					return triNull
				}
				return truth(*r.T == "apple" || *r.T == "Zebra")
			}},
		filterCase{"S in (\"a,b\", \"m\", \"nothing\")", col("S").IsIn("a,b", "m", "nothing"),
			func(r testRow) tri {
				if r.S == nil {
					return triNull
				}
				return truth(*r.S == "a,b" || *r.S == "m")
			}},
		filterCase{"B in (false)", col("B").IsIn(false), func(r testRow) tri { return boolEq(r.B, false) }},
		filterCase{"I in ()", col("I").IsIn(), func(r testRow) tri {
			if r.I == nil {
				return triNull
			}
			return triFalse
		}},
		filterCase{"not (K in (\"east\", \"west\"))", col("K").IsIn("east", "west").Not(),
			func(r testRow) tri {
				if r.K == nil {
					return triNull
				}
				return truth(*r.K != "east" && *r.K != "west")
			}},
	)
	// IsNull and NotNull over every column type.
	for _, c := range []struct {
		name string
		null func(r testRow) bool
	}{
		{"I", func(r testRow) bool { return r.I == nil }},
		{"F", func(r testRow) bool { return r.F == nil }},
		{"S", func(r testRow) bool { return r.S == nil }},
		{"T", func(r testRow) bool { return r.T == nil }},
		{"B", func(r testRow) bool { return r.B == nil }},
		{"K", func(r testRow) bool { return r.K == nil }},
	} {
		cases = append(cases,
			filterCase{"isnull(" + c.name + ")", col(c.name).IsNull(), func(r testRow) tri { return truth(c.null(r)) }},
			filterCase{"notnull(" + c.name + ")", col(c.name).NotNull(), func(r testRow) tri { return truth(!c.null(r)) }},
		)
	}
	cases = append(cases,
		filterCase{"isnull(I > J)", col("I").Gt(col("J")).IsNull(),
			func(r testRow) tri { return truth(cmp3(r.I, r.J, ">") == triNull) }},
		filterCase{"not isnull(I) and F > 0", col("I").NotNull().And(col("F").Gt(0)),
			func(r testRow) tri { return and3(truth(r.I != nil), cmp3(r.F, ptr(0.0), ">")) }},
		filterCase{"isnull(I) or F > 100", col("I").IsNull().Or(col("F").Gt(100)),
			func(r testRow) tri { return or3(truth(r.I == nil), cmp3(r.F, ptr(100.0), ">")) }},
	)
	return cases
}

func TestFilter(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(1, 300)
	cases := filterCases()
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			for _, c := range cases {
				f := tf.frame.Filter(c.pred)
				if err := f.Err(); err != nil {
					t.Errorf("%s: %v", c.name, err)
					continue
				}
				tb, err := f.Compute(ctx)
				if err != nil {
					t.Errorf("%s: Compute: %v", c.name, err)
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					defer tb.Release()
					checkTable(t, f, tb, testColumns, testTypes, keep(rows, c.ref), 0)
				})
			}
		})
	}
}

func TestSelect(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(2, 200)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			f := tf.frame.Select("S", "I", "B", "F")
			var want [][]any
			for _, r := range rows {
				want = append(want, []any{val(r.S), val(r.I), val(r.B), val(r.F)})
			}
			checkTable(t, f, compute(t, ctx, f), []string{"S", "I", "B", "F"},
				[]string{"utf8", "int64", "bool", "float64"}, want, 0)

			// A select of a select, and a filter on a column the select dropped
			// before it.
			f = tf.frame.Filter(col("KI").Eq(2)).Select("K", "ID").Select("ID")
			want = nil
			for _, r := range rows {
				if r.KI != nil && *r.KI == 2 {
					want = append(want, []any{r.ID})
				}
			}
			checkTable(t, f, compute(t, ctx, f), []string{"ID"}, []string{"int64"}, want, 0)
		})
	}
}

// arithCase is an expression computed into a column and its reference.
type arithCase struct {
	name string
	expr dataframe.Expr
	typ  string
	ref  func(r testRow) any
}

func arithCases() []arithCase {
	ints := func(a, b *int64, f func(x, y int64) int64) any {
		if a == nil || b == nil {
			return nil
		}
		return f(*a, *b)
	}
	floats := func(a, b *float64, f func(x, y float64) float64) any {
		if a == nil || b == nil {
			return nil
		}
		return f(*a, *b)
	}
	add := func(x, y int64) int64 { return x + y }
	sub := func(x, y int64) int64 { return x - y }
	mul := func(x, y int64) int64 { return x * y }
	fadd := func(x, y float64) float64 { return x + y }
	fsub := func(x, y float64) float64 { return x - y }
	fmul := func(x, y float64) float64 { return x * y }
	fdiv := func(x, y float64) float64 { return x / y }
	three, half := ptr(int64(3)), ptr(0.5)
	return []arithCase{
		{"I + J", col("I").Add(col("J")), "int64", func(r testRow) any { return ints(r.I, r.J, add) }},
		{"I - J", col("I").Sub(col("J")), "int64", func(r testRow) any { return ints(r.I, r.J, sub) }},
		{"I * J", col("I").Mul(col("J")), "int64", func(r testRow) any { return ints(r.I, r.J, mul) }},
		{"I / J (int/int is float, x/0 is ±Inf or NaN)", col("I").Div(col("J")), "float64",
			func(r testRow) any { return floats(asFloat(r.I), asFloat(r.J), fdiv) }},
		{"I + 3", col("I").Add(3), "int64", func(r testRow) any { return ints(r.I, three, add) }},
		{"I - 3", col("I").Sub(lit(3)), "int64", func(r testRow) any { return ints(r.I, three, sub) }},
		{"3 - I", lit(3).Sub(col("I")), "int64", func(r testRow) any { return ints(three, r.I, sub) }},
		{"I * 3", col("I").Mul(3), "int64", func(r testRow) any { return ints(r.I, three, mul) }},
		{"I / 3", col("I").Div(3), "float64", func(r testRow) any { return floats(asFloat(r.I), ptr(3.0), fdiv) }},
		{"3 / J", lit(3).Div(col("J")), "float64", func(r testRow) any { return floats(ptr(3.0), asFloat(r.J), fdiv) }},
		{"I + 0.5", col("I").Add(0.5), "float64", func(r testRow) any { return floats(asFloat(r.I), half, fadd) }},
		{"I * F", col("I").Mul(col("F")), "float64", func(r testRow) any { return floats(asFloat(r.I), r.F, fmul) }},
		{"F - I", col("F").Sub(col("I")), "float64", func(r testRow) any { return floats(r.F, asFloat(r.I), fsub) }},
		{"F + G", col("F").Add(col("G")), "float64", func(r testRow) any { return floats(r.F, r.G, fadd) }},
		{"F * G", col("F").Mul(col("G")), "float64", func(r testRow) any { return floats(r.F, r.G, fmul) }},
		{"F / G", col("F").Div(col("G")), "float64", func(r testRow) any { return floats(r.F, r.G, fdiv) }},
		{"F / 0", col("F").Div(0), "float64", func(r testRow) any { return floats(r.F, ptr(0.0), fdiv) }},
		{"0.5 - F", lit(0.5).Sub(col("F")), "float64", func(r testRow) any { return floats(half, r.F, fsub) }},
		{"I + null", col("I").Add(nil), "int64", func(testRow) any { return nil }},
		{"F * null", col("F").Mul(lit(nil)), "float64", func(testRow) any { return nil }},
		{"(I + J) * (F - 1)", col("I").Add(col("J")).Mul(col("F").Sub(1)), "float64", func(r testRow) any {
			s := ints(r.I, r.J, add)
			if s == nil || r.F == nil {
				return nil
			}
			return float64(s.(int64)) * (*r.F - 1)
		}},
		{"I > J (a bool column)", col("I").Gt(col("J")), "bool", func(r testRow) any {
			switch cmp3(r.I, r.J, ">") {
			case triTrue:
				return true
			case triFalse:
				return false
			}
			return nil
		}},
		{"isnull(S)", col("S").IsNull(), "bool", func(r testRow) any { return r.S == nil }},
		{"lit 7", lit(7), "int64", func(testRow) any { return int64(7) }},
		{"lit 2.5", lit(2.5), "float64", func(testRow) any { return 2.5 }},
		{"lit \"x\"", lit("x"), "utf8", func(testRow) any { return "x" }},
		{"lit true", lit(true), "bool", func(testRow) any { return true }},
		{"K (a copy)", col("K"), "utf8", func(r testRow) any { return val(r.K) }},
	}
}

func TestWithColumn(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(3, 250)
	cases := arithCases()
	cols := append(append([]string(nil), testColumns...), "new")
	types := append(append([]string(nil), testTypes...), "")
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					f := tf.frame.WithColumn("new", c.expr)
					var want [][]any
					for _, r := range rows {
						want = append(want, append(r.values(), c.ref(r)))
					}
					types[len(types)-1] = c.typ
					checkTable(t, f, compute(t, ctx, f), cols, types, want, 0)
				})
			}
		})
	}
}

// TestWithColumnReplaces checks that a column replaced keeps its place,
// takes the new type, and that later steps see the new values.
func TestWithColumnReplaces(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(4, 200)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			f := tf.frame.WithColumn("I", col("I").Div(2)).WithColumn("S", col("I").Gt(5))
			types := append([]string(nil), testTypes...)
			types[1], types[5] = "float64", "bool"
			var want [][]any
			for _, r := range rows {
				v := r.values()
				v[5] = nil
				if r.I != nil {
					v[1] = float64(*r.I) / 2
					v[5] = float64(*r.I)/2 > 5
				}
				want = append(want, v)
			}
			checkTable(t, f, compute(t, ctx, f), testColumns, types, want, 0)
		})
	}
}

// TestChain runs filters, new columns and selects one after another, with
// filters on computed columns.
func TestChain(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(5, 400)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			f := tf.frame.
				Filter(col("B").NotNull()).
				WithColumn("ratio", col("F").Div(col("I"))).
				WithColumn("big", col("ratio").Gt(1).Or(col("K").Eq("solo"))).
				Filter(col("big").And(col("I").Ne(0))).
				WithColumn("score", col("I").Mul(10).Add(col("KI"))).
				Select("ID", "score", "ratio", "K").
				Filter(col("score").Ge(-100))
			var want [][]any
			for _, r := range rows {
				if r.B == nil {
					continue
				}
				var ratio *float64
				if r.F != nil && r.I != nil {
					ratio = ptr(*r.F / float64(*r.I))
				}
				big := or3(cmp3(ratio, ptr(1.0), ">"), cmp3(r.K, ptr("solo"), "=="))
				if and3(big, cmp3(r.I, ptr(int64(0)), "!=")) != triTrue {
					continue
				}
				var score *int64
				if r.I != nil && r.KI != nil {
					score = ptr(*r.I*10 + *r.KI)
				}
				if cmp3(score, ptr(int64(-100)), ">=") != triTrue {
					continue
				}
				want = append(want, []any{r.ID, val(score), val(ratio), val(r.K)})
			}
			if len(want) < 10 {
				t.Fatalf("the reference keeps only %d rows: a weak test", len(want))
			}
			checkTable(t, f, compute(t, ctx, f), []string{"ID", "score", "ratio", "K"},
				[]string{"int64", "int64", "float64", "utf8"}, want, 0)
		})
	}
}

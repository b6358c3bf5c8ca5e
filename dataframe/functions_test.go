package dataframe_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe"
)

// funcCase is one use of an operation of the expression table, computed
// into a column and checked row by row against a plain Go reference.
type funcCase struct {
	op   string // the table's name for the operation tested
	expr dataframe.Expr
	typ  string
	ref  func(r testRow) any
}

// opt maps a nullable value through f; null stays null.
func opt[T any](p *T, f func(T) any) any {
	if p == nil {
		return nil
	}
	return f(*p)
}

func funcCases() []funcCase {
	when := dataframe.When
	str := func(p *string, f func(string) any) any { return opt(p, f) }
	flt := func(p *float64, f func(float64) any) any { return opt(p, f) }
	i64 := func(p *int64, f func(int64) any) any { return opt(p, f) }
	pyMod := func(a, b int64) int64 {
		r := a % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r
	}
	// floatText is how pandas prints a float: whole numbers keep ".0".
	floatText := func(v float64) string {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	runes := func(s string, start, length int) string {
		r := []rune(s)
		if start < 0 {
			start = max(len(r)+start, 0)
		}
		start = min(start, len(r))
		end := len(r)
		if length >= 0 {
			end = min(start+length, len(r))
		}
		return string(r[start:end])
	}
	like := func(pat string) func(string) any {
		re := "^" + strings.NewReplacer("%", ".*", "_", ".").Replace(regexp.QuoteMeta(pat)) + "$"
		m := regexp.MustCompile("(?s)" + re)
		return func(s string) any { return m.MatchString(s) }
	}
	return []funcCase{
		{"col", col("K"), "utf8", func(r testRow) any { return val(r.K) }},
		{"alias", col("I").Add(1).Alias("x"), "int64", func(r testRow) any { return opt(r.I, func(v int64) any { return v + 1 }) }},
		{"lit", lit(2.5), "float64", func(testRow) any { return 2.5 }},
		{"lit", lit(nil), "float64", func(testRow) any { return nil }},
		{"==", col("T").Eq("apple"), "bool", func(r testRow) any { return str(r.T, func(s string) any { return s == "apple" }) }},
		{"!=", col("I").Ne(col("J")), "bool", func(r testRow) any { return triAny(cmp3(r.I, r.J, "!=")) }},
		{"<", col("F").Lt(col("I")), "bool", func(r testRow) any { return triAny(cmp3(r.F, asFloat(r.I), "<")) }},
		{"<=", col("I").Le(3), "bool", func(r testRow) any { return triAny(cmp3(r.I, ptr(int64(3)), "<=")) }},
		{">", col("S").Gt("b"), "bool", func(r testRow) any { return triAny(cmp3(r.S, ptr("b"), ">")) }},
		{">=", col("F").Ge(0.5), "bool", func(r testRow) any { return triAny(cmp3(r.F, ptr(0.5), ">=")) }},
		{"and", col("I").Between(-10, 10), "bool", func(r testRow) any {
			return triAny(and3(cmp3(r.I, ptr(int64(-10)), ">="), cmp3(r.I, ptr(int64(10)), "<=")))
		}},
		{"or", col("B").Or(col("I").Gt(0)), "bool", func(r testRow) any { return triAny(or3(boolOf(r.B), cmp3(r.I, ptr(int64(0)), ">"))) }},
		{"not", col("B").Not(), "bool", func(r testRow) any { return triAny(not3(boolOf(r.B))) }},
		{"isnull", col("S").IsNull(), "bool", func(r testRow) any { return r.S == nil }},
		{"isin", col("T").IsIn("ant", "banana"), "bool", func(r testRow) any {
			return str(r.T, func(s string) any { return s == "ant" || s == "banana" })
		}},
		{"+", col("I").Add(col("J")), "int64", func(r testRow) any { return ints2(r.I, r.J, func(a, b int64) any { return a + b }) }},
		{"-", col("F").Sub(1), "float64", func(r testRow) any { return flt(r.F, func(v float64) any { return v - 1 }) }},
		{"*", col("I").Mul(col("F")), "float64", func(r testRow) any {
			return floats2(asFloat(r.I), r.F, func(a, b float64) any { return a * b })
		}},
		{"/", col("I").Div(col("J")), "float64", func(r testRow) any {
			return floats2(asFloat(r.I), asFloat(r.J), func(a, b float64) any { return a / b })
		}},
		{"mod", col("I").Mod(col("J")), "int64", func(r testRow) any {
			return ints2(r.I, r.J, func(a, b int64) any {
				if b == 0 {
					return nil
				}
				return pyMod(a, b)
			})
		}},
		{"mod", col("F").Mod(-3), "float64", func(r testRow) any {
			return flt(r.F, func(v float64) any {
				m := math.Mod(v, -3)
				if m != 0 && m > 0 {
					m -= 3
				}
				return m
			})
		}},
		{"pow", col("J").Pow(2), "float64", func(r testRow) any { return i64(r.J, func(v int64) any { return float64(v * v) }) }},
		{"neg", col("I").Neg(), "int64", func(r testRow) any { return i64(r.I, func(v int64) any { return -v }) }},
		{"neg", col("F").Neg(), "float64", func(r testRow) any { return flt(r.F, func(v float64) any { return -v }) }},
		{"abs", col("I").Abs(), "int64", func(r testRow) any {
			return i64(r.I, func(v int64) any { return max(v, -v) })
		}},
		{"abs", col("F").Abs(), "float64", func(r testRow) any { return flt(r.F, func(v float64) any { return math.Abs(v) }) }},
		{"sqrt", col("F").Sqrt(), "float64", func(r testRow) any { return flt(r.F, func(v float64) any { return math.Sqrt(v) }) }},
		{"log", col("F").Log(), "float64", func(r testRow) any { return flt(r.F, func(v float64) any { return math.Log(v) }) }},
		{"exp", col("J").Exp(), "float64", func(r testRow) any { return i64(r.J, func(v int64) any { return math.Exp(float64(v)) }) }},
		{"floor", col("F").Floor(), "float64", func(r testRow) any { return flt(r.F, func(v float64) any { return math.Floor(v) }) }},
		{"floor", col("I").Floor(), "int64", func(r testRow) any { return val(r.I) }},
		{"ceil", col("F").Ceil(), "float64", func(r testRow) any { return flt(r.F, func(v float64) any { return math.Ceil(v) }) }},
		{"round", col("F").Round(1), "float64", func(r testRow) any {
			return flt(r.F, func(v float64) any { return math.Round(v*10) / 10 })
		}},
		{"round", col("I").Round(-1), "int64", func(r testRow) any {
			return i64(r.I, func(v int64) any { return int64(math.Round(float64(v)/10) * 10) })
		}},
		{"isnan", col("I").Div(col("J")).IsNaN(), "bool", func(r testRow) any {
			return floats2(asFloat(r.I), asFloat(r.J), func(a, b float64) any { return math.IsNaN(a / b) })
		}},
		{"coalesce", dataframe.Coalesce(col("I"), col("J"), 0), "int64", func(r testRow) any {
			switch {
			case r.I != nil:
				return *r.I
			case r.J != nil:
				return *r.J
			}
			return int64(0)
		}},
		{"coalesce", col("F").FillNull(col("I")), "float64", func(r testRow) any {
			if r.F != nil {
				return *r.F
			}
			return val(asFloat(r.I))
		}},
		{"coalesce", col("T").FillNull("none"), "utf8", func(r testRow) any {
			if r.T != nil {
				return *r.T
			}
			return "none"
		}},
		{"when", when(col("I").Gt(0)).Then("pos").When(col("I").Lt(0)).Then(col("T")).Otherwise("zero"), "utf8", func(r testRow) any {
			switch {
			case r.I != nil && *r.I > 0:
				return "pos"
			case r.I != nil && *r.I < 0:
				return val(r.T)
			}
			return "zero"
		}},
		{"when", when(col("B")).Then(col("F")).Otherwise(col("I")), "float64", func(r testRow) any {
			if r.B != nil && *r.B {
				return val(r.F)
			}
			return val(asFloat(r.I))
		}},
		{"when", when(col("I").Gt(col("J"))).Then(col("B")).Otherwise(nil), "bool", func(r testRow) any {
			if cmp3(r.I, r.J, ">") == triTrue {
				return val(r.B)
			}
			return nil
		}},
		{"cast", col("I").Cast(dataframe.Float64), "float64", func(r testRow) any { return val(asFloat(r.I)) }},
		{"cast", col("F").Cast(dataframe.Int64), "int64", func(r testRow) any { return flt(r.F, func(v float64) any { return int64(v) }) }},
		{"cast", col("F").Cast(dataframe.String), "utf8", func(r testRow) any { return flt(r.F, func(v float64) any { return floatText(v) }) }},
		{"cast", col("B").Cast(dataframe.Int64), "int64", func(r testRow) any {
			return opt(r.B, func(b bool) any { return int64(map[bool]int{true: 1}[b]) })
		}},
		{"cast", col("I").Cast(dataframe.String).Cast(dataframe.Int64), "int64", func(r testRow) any { return val(r.I) }},
		{"cast", col("I").Cast(dataframe.Bool), "bool", func(r testRow) any { return i64(r.I, func(v int64) any { return v != 0 }) }},
		{"cast", col("I").Cast(arrow.PrimitiveTypes.Int32), "int32", func(r testRow) any { return val(r.I) }},
		{"try_cast", col("I").TryCast(arrow.PrimitiveTypes.Int8), "int8", func(r testRow) any {
			return i64(r.I, func(v int64) any {
				if v < -128 || v > 127 {
					return nil
				}
				return v
			})
		}},
		{"cast", col("I").Cast(arrow.PrimitiveTypes.Float32), "float32", func(r testRow) any { return i64(r.I, func(v int64) any { return float64(float32(v)) }) }},
		{"try_cast", col("S").Str().Slice(-3, -1).TryCast(dataframe.Int64), "int64", func(r testRow) any {
			return str(r.S, func(s string) any {
				v, err := strconv.ParseInt(runes(s, -3, -1), 10, 64)
				if err != nil {
					return nil
				}
				return v
			})
		}},
		{"try_cast", col("T").TryCast(dataframe.Float64), "float64", func(r testRow) any { return nil }},
		{"str.contains", col("S").Str().Contains("an"), "bool", func(r testRow) any {
			return str(r.S, func(s string) any { return strings.Contains(s, "an") })
		}},
		{"str.contains", col("T").Str().Contains("an"), "bool", func(r testRow) any {
			return str(r.T, func(s string) any { return strings.Contains(s, "an") })
		}},
		{"str.starts_with", col("S").Str().StartsWith("a"), "bool", func(r testRow) any {
			return str(r.S, func(s string) any { return strings.HasPrefix(s, "a") })
		}},
		{"str.ends_with", col("T").Str().EndsWith("na"), "bool", func(r testRow) any {
			return str(r.T, func(s string) any { return strings.HasSuffix(s, "na") })
		}},
		{"str.matches", col("S").Str().Matches(`^[a-z]+\d+$`), "bool", func(r testRow) any {
			return str(r.S, func(s string) any { return regexp.MustCompile(`^[a-z]+\d+$`).MatchString(s) })
		}},
		{"str.like", col("S").Str().Like("a%"), "bool", func(r testRow) any { return str(r.S, like("a%")) }},
		{"str.like", col("S").Str().Like("%pie%"), "bool", func(r testRow) any { return str(r.S, like("%pie%")) }},
		{"str.like", col("S").Str().Like("%1"), "bool", func(r testRow) any { return str(r.S, like("%1")) }},
		{"str.like", col("T").Str().Like("_pple"), "bool", func(r testRow) any { return str(r.T, like("_pple")) }},
		{"str.like", col("S").Str().Like("%a%e_"), "bool", func(r testRow) any { return str(r.S, like("%a%e_")) }},
		{"str.like", col("S").Str().Like("%a%e%"), "bool", func(r testRow) any { return str(r.S, like("%a%e%")) }},
		{"str.like", col("T").Str().Like("a%e"), "bool", func(r testRow) any { return str(r.T, like("a%e")) }},
		{"str.like", col("T").Str().Like("%p%p%"), "bool", func(r testRow) any { return str(r.T, like("%p%p%")) }},
		{"str.like", col("S").Str().Like("%%"), "bool", func(r testRow) any { return str(r.S, like("%%")) }},
		{"str.like", col("T").Str().Like("ap%le%"), "bool", func(r testRow) any { return str(r.T, like("ap%le%")) }},
		{"str.like", col("S").Str().Like("%e%e"), "bool", func(r testRow) any { return str(r.S, like("%e%e")) }},
		{"str.lower", col("S").Str().Lower(), "utf8", func(r testRow) any { return str(r.S, func(s string) any { return strings.ToLower(s) }) }},
		{"str.upper", col("T").Str().Upper(), "utf8", func(r testRow) any { return str(r.T, func(s string) any { return strings.ToUpper(s) }) }},
		{"str.upper", col("S").Str().Upper(), "utf8", func(r testRow) any { return str(r.S, func(s string) any { return strings.ToUpper(s) }) }},
		{"str.len", col("S").Str().Len(), "int64", func(r testRow) any {
			return str(r.S, func(s string) any { return int64(utf8.RuneCountInString(s)) })
		}},
		{"str.slice", col("S").Str().Slice(1, 3), "utf8", func(r testRow) any { return str(r.S, func(s string) any { return runes(s, 1, 3) }) }},
		{"str.slice", col("T").Str().Slice(-2, -1), "utf8", func(r testRow) any { return str(r.T, func(s string) any { return runes(s, -2, -1) }) }},
		{"str.replace", col("S").Str().Replace("a", "AA"), "utf8", func(r testRow) any {
			return str(r.S, func(s string) any { return strings.ReplaceAll(s, "a", "AA") })
		}},
		{"str.strip", dataframe.ConcatStr(" ", col("T"), "\t").Str().Strip(), "utf8", func(r testRow) any { return val(r.T) }},
		{"str.split_get", col("S").Str().Split(" ").Get(1), "utf8", func(r testRow) any {
			return str(r.S, func(s string) any {
				if p := strings.Split(s, " "); len(p) > 1 {
					return p[1]
				}
				return nil
			})
		}},
		{"str.split_get", col("T").Str().Split("a").Get(-1), "utf8", func(r testRow) any {
			return str(r.T, func(s string) any { p := strings.Split(s, "a"); return p[len(p)-1] })
		}},
		{"concat_str", dataframe.ConcatStr(col("T"), "-", col("I"), 1.0, col("B")), "utf8", func(r testRow) any {
			if r.T == nil || r.I == nil || r.B == nil {
				return nil
			}
			return *r.T + "-" + strconv.FormatInt(*r.I, 10) + "1.0" + strconv.FormatBool(*r.B)
		}},
	}
}

func triAny(v tri) any {
	switch v {
	case triTrue:
		return true
	case triFalse:
		return false
	}
	return nil
}

func ints2(a, b *int64, f func(x, y int64) any) any {
	if a == nil || b == nil {
		return nil
	}
	return f(*a, *b)
}

func floats2(a, b *float64, f func(x, y float64) any) any {
	if a == nil || b == nil {
		return nil
	}
	return f(*a, *b)
}

// TestFunctions computes every case of every operation of the expression
// table over 1, 3 and 16 partitions (empty ones among them) of rows with
// nulls, from Arrow records, from sliced Arrow records and from CSV (whose
// repetitive strings are dictionary-encoded), against the reference.
func TestFunctions(t *testing.T) {
	cases := funcCases()
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.op] = true
	}
	for _, c := range typedCases() {
		covered[c.op] = true
	}
	for _, name := range dataframe.Operations() {
		if !covered[name] {
			t.Errorf("the operation %q has no reference case in funcCases or typedCases", name)
		}
	}
	ctx := newClient(t)
	rows := genRows(11, 240)
	cols := append(append([]string(nil), testColumns...), "new")
	types := append(append([]string(nil), testTypes...), "")
	for _, src := range []source{{"arrow", arrowFrame}, {"sliced", slicedFrame}, {"csv", csvFrame}} {
		for _, l := range layouts(len(rows)) {
			frame := src.make(t, rows, l.sizes)
			t.Run(src.name+"/"+l.name, func(t *testing.T) {
				for _, c := range cases {
					t.Run(c.expr.String(), func(t *testing.T) {
						f := frame.WithColumn("new", c.expr)
						if err := f.Err(); err != nil {
							t.Fatal(err)
						}
						var want [][]any
						for _, r := range rows {
							want = append(want, append(r.values(), c.ref(r)))
						}
						types[len(types)-1] = c.typ
						checkTable(t, f, compute(t, ctx, f), cols, types, want, 1e-12)
					})
				}
			})
		}
	}
}

// slicedFrame makes each partition a slice from the middle of a larger
// record, so that kernels meet arrays whose data starts at an offset.
func slicedFrame(t *testing.T, rows []testRow, sizes []int) *dataframe.Frame {
	pad := genRows(99, 13)
	recs := make([]arrow.Record, len(sizes))
	lo := 0
	for i, n := range sizes {
		all := append(append(append([]testRow(nil), pad[:5]...), rows[lo:lo+n]...), pad[5:]...)
		whole := record(all)
		recs[i] = whole.NewSlice(5, int64(5+n))
		whole.Release()
		lo += n
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	return dataframe.FromArrow(recs...)
}

// TestFunctionErrors checks that an operation given a type it does not take
// fails when the plan is built, naming the operation, the column and its
// type; and that a strict cast of a value that does not convert fails the
// computation naming the value, the column and the row.
func TestFunctionErrors(t *testing.T) {
	rows := genRows(5, 40)
	frame := arrowFrame(t, rows, []int{20, 20})
	for _, c := range []struct {
		expr  dataframe.Expr
		parts []string
	}{
		{col("S").Sqrt(), []string{"sqrt", "S (string)"}},
		{col("I").Str().Contains("x"), []string{"str.contains", "I (int64)", "a string"}},
		{col("B").Mod(2), []string{"mod", "B (bool)"}},
		{col("S").Str().Matches("a("), []string{"str.matches", "missing closing )"}},
		{col("S").Str().Replace("", "x"), []string{"str.replace", "empty"}},
		{col("S").Str().Split("").Get(0), []string{"separator is empty"}},
		{dataframe.When(col("I")).Then(1).Otherwise(2), []string{"when", "bool condition", "I (int64)"}},
		{dataframe.When(col("B")).Then(col("S")).Otherwise(col("I")), []string{"no common type", "S (string)", "I (int64)"}},
		{dataframe.Coalesce(col("B"), 1.5), []string{"coalesce", "B (bool)", "1.5 (float64)"}},
		{col("I").Cast(nil), []string{"no type"}},
		{col("I").Cast(arrow.BinaryTypes.Binary), []string{"cannot cast to binary"}},
		{col("nope").Abs(), []string{`column "nope" not found`}},
		{col("I").Cast(dataframe.Timestamp(arrow.Microsecond, "Mars/Olympus")), []string{`unknown time zone "Mars/Olympus"`}},
		{col("F").Dt().Year(), []string{"dt.year", "F (float64)", "a date or timestamp"}},
		{col("S").Str().ToDate("").Dt().Hour(), []string{"dt.hour needs a timestamp"}},
		{col("I").Add(dataframe.Months(1)), []string{"+ does not apply to int64 and month_interval"}},
	} {
		f := frame.WithColumn("new", c.expr)
		wantErr(t, c.expr.String(), f.Err(), c.parts...)
	}

	ctx := newClient(t)
	bad := frame.WithColumn("new", col("T").Cast(dataframe.Int64))
	if err := bad.Err(); err != nil {
		t.Fatalf("the cast fails before it runs: %v", err)
	}
	_, err := bad.Compute(ctx)
	first := 0
	for first < 20 && rows[first].T == nil {
		first++
	}
	wantErr(t, "Compute", err, "cast(T", strconv.Quote(*rows[first].T), "int64", "row "+strconv.Itoa(first))
}

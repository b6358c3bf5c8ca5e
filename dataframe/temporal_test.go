package dataframe_test

import (
	"fmt"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
)

// typedRow is a row of testdata/types/duckdb.parquet as plain Go values,
// nil for null: dates and timestamps as time.Time (dates at UTC midnight),
// decimals as *big.Rat.
type typedRow map[string]any

// typedCase is an operation on dates, timestamps or decimals and its
// reference, in plain Go (the time package, math/big).
type typedCase struct {
	op   string
	expr dataframe.Expr
	typ  string
	ref  func(r typedRow) any
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func typedCases() []typedCase {
	col, lit := dataframe.Col, dataframe.Lit
	tm := func(r typedRow, c string) (time.Time, bool) { t, ok := r[c].(time.Time); return t, ok }
	field := func(c string, f func(time.Time) int) func(r typedRow) any {
		return func(r typedRow) any {
			if t, ok := tm(r, c); ok {
				return int64(f(t))
			}
			return nil
		}
	}
	weekday := func(t time.Time) int { return (int(t.Weekday())+6)%7 + 1 }
	quarter := func(t time.Time) int { return (int(t.Month())-1)/3 + 1 }
	rat := func(r typedRow, c string) (*big.Rat, bool) { v, ok := r[c].(*big.Rat); return v, ok }
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic(err)
	}
	inParis := col("ts").Cast(dataframe.Timestamp(arrow.Microsecond, "Europe/Paris"))
	cutoff := date(1995, 6, 17)
	return []typedCase{
		{"dt.year", col("d").Dt().Year(), "int32", field("d", time.Time.Year)},
		{"dt.year", col("ts").Dt().Year(), "int32", field("ts", time.Time.Year)},
		{"dt.quarter", col("d").Dt().Quarter(), "int32", field("d", quarter)},
		{"dt.month", col("ts_ns").Dt().Month(), "int32", field("ts_ns", func(t time.Time) int { return int(t.Month()) })},
		{"dt.day", col("d").Dt().Day(), "int32", field("d", time.Time.Day)},
		{"dt.hour", col("ts").Dt().Hour(), "int32", field("ts", time.Time.Hour)},
		{"dt.hour", inParis.Dt().Hour(), "int32", field("ts", func(t time.Time) int { return t.In(paris).Hour() })},
		{"dt.truncate", inParis.Dt().Truncate("1d"), "timestamp[us, tz=Europe/Paris]", func(r typedRow) any {
			if t, ok := tm(r, "ts"); ok {
				p := t.In(paris)
				return time.Date(p.Year(), p.Month(), p.Day(), 0, 0, 0, 0, paris)
			}
			return nil
		}},
		{"dt.minute", col("ts").Dt().Minute(), "int32", field("ts", time.Time.Minute)},
		{"dt.second", col("ts_ns").Dt().Second(), "int32", field("ts_ns", time.Time.Second)},
		{"dt.weekday", col("d").Dt().Weekday(), "int32", field("d", weekday)},
		{"dt.weekday", col("ts").Dt().Weekday(), "int32", field("ts", weekday)},
		{"dt.day_of_year", col("d").Dt().DayOfYear(), "int32", field("d", time.Time.YearDay)},
		{"dt.truncate", col("d").Dt().Truncate("1mo"), "date32", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return date(t.Year(), t.Month(), 1)
			}
			return nil
		}},
		{"dt.truncate", col("d").Dt().Truncate("1w"), "date32", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return t.AddDate(0, 0, -(weekday(t) - 1))
			}
			return nil
		}},
		{"dt.truncate", col("ts").Dt().Truncate("1h"), "timestamp[us, tz=UTC]", func(r typedRow) any {
			if t, ok := tm(r, "ts"); ok {
				return t.Truncate(time.Hour)
			}
			return nil
		}},
		{"dt.truncate", col("ts").Dt().Truncate("1q"), "timestamp[us, tz=UTC]", func(r typedRow) any {
			if t, ok := tm(r, "ts"); ok {
				return date(t.Year(), time.Month((int(t.Month())-1)/3*3+1), 1)
			}
			return nil
		}},
		{"<", col("d").Lt(dataframe.Date("1995-06-17")), "bool", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return t.Before(cutoff)
			}
			return nil
		}},
		{">=", col("ts").Ge(cutoff), "bool", func(r typedRow) any {
			if t, ok := tm(r, "ts"); ok {
				return !t.Before(cutoff)
			}
			return nil
		}},
		{"<", col("d").Lt("1995-06-17"), "bool", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return t.Before(cutoff)
			}
			return nil
		}},
		{"==", col("d").Eq(col("ts").Cast(dataframe.Date32)), "bool", func(r typedRow) any {
			d, ok1 := tm(r, "d")
			t, ok2 := tm(r, "ts")
			if !ok1 || !ok2 {
				return nil
			}
			return d.Equal(date(t.Year(), t.Month(), t.Day()))
		}},
		{"+", col("d").Add(dataframe.Days(90)), "date32", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return t.AddDate(0, 0, 90)
			}
			return nil
		}},
		{"+", col("d").Add(dataframe.Months(3)), "date32", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return addMonthsClamped(t, 3)
			}
			return nil
		}},
		{"-", col("ts").Sub(dataframe.Months(1)), "timestamp[us, tz=UTC]", func(r typedRow) any {
			if t, ok := tm(r, "ts"); ok {
				return addMonthsClamped(t, -1)
			}
			return nil
		}},
		{"+", col("ts").Add(lit(90 * time.Minute)), "timestamp[us, tz=UTC]", func(r typedRow) any {
			if t, ok := tm(r, "ts"); ok {
				return t.Add(90 * time.Minute)
			}
			return nil
		}},
		{"-", col("ts").Sub(col("ts_ns")), "duration[us]", func(r typedRow) any {
			a, ok1 := tm(r, "ts")
			b, ok2 := tm(r, "ts_ns")
			if !ok1 || !ok2 {
				return nil
			}
			return a.Sub(b)
		}},
		{"cast", col("ts").Sub(col("ts_ns")).Cast(&arrow.DurationType{Unit: arrow.Second}), "duration[s]", func(r typedRow) any {
			a, ok1 := tm(r, "ts")
			b, ok2 := tm(r, "ts_ns")
			if !ok1 || !ok2 {
				return nil
			}
			d := a.Sub(b)
			if f := d.Truncate(time.Second); f != d && d < 0 {
				return f - time.Second // floored, as a timestamp's unit converts
			}
			return d.Truncate(time.Second)
		}},
		{"-", col("d").Sub(dataframe.Date("1992-01-01")), "duration[ms]", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return t.Sub(date(1992, 1, 1))
			}
			return nil
		}},
		{"*", col("price").Mul(col("tiny")), "decimal(18, 2)", func(r typedRow) any {
			p, ok := rat(r, "price")
			if !ok || r["tiny"] == nil {
				return nil
			}
			return new(big.Rat).Mul(p, big.NewRat(r["tiny"].(int64), 1))
		}},
		{"-", col("price").Sub(col("price").Mul(0.5)), "float64", func(r typedRow) any {
			if p, ok := rat(r, "price"); ok {
				f, _ := p.Float64()
				return f - f*0.5
			}
			return nil
		}},
		{"+", col("price").Add(col("price")), "decimal(16, 2)", func(r typedRow) any {
			if p, ok := rat(r, "price"); ok {
				return new(big.Rat).Add(p, p)
			}
			return nil
		}},
		{">", col("price").Gt(0.05), "bool", func(r typedRow) any {
			if p, ok := rat(r, "price"); ok {
				return p.Cmp(big.NewRat(5, 100)) > 0
			}
			return nil
		}},
		{"<", col("big").Lt(50), "bool", func(r typedRow) any {
			if p, ok := rat(r, "big"); ok {
				return p.Cmp(big.NewRat(50, 1)) < 0
			}
			return nil
		}},
		{"coalesce", col("d").FillNull(dataframe.Date("2000-01-01")), "date32", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return t
			}
			return date(2000, 1, 1)
		}},
		{"when", dataframe.When(col("i").Gt(150)).Then(col("price")).Otherwise(0), "decimal(18, 2)", func(r typedRow) any {
			if i, ok := r["i"].(int64); ok && i > 150 {
				if p, ok := rat(r, "price"); ok {
					return p
				}
				return nil
			}
			return new(big.Rat)
		}},
		{"cast", col("price").Cast(dataframe.Float64), "float64", func(r typedRow) any {
			if p, ok := rat(r, "price"); ok {
				f, _ := p.Float64()
				return f
			}
			return nil
		}},
		{"cast", col("f32").Cast(dataframe.Decimal(10, 1)), "decimal(10, 1)", func(r typedRow) any {
			if f, ok := r["f32"].(float64); ok {
				return new(big.Rat).SetFrac64(int64(math.Round(f*10)), 10)
			}
			return nil
		}},
		{"cast", col("d").Cast(dataframe.String), "utf8", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return t.Format("2006-01-02")
			}
			return nil
		}},
		{"cast", col("ts").Cast(dataframe.String).Cast(dataframe.Timestamp(arrow.Microsecond, "UTC")), "timestamp[us, tz=UTC]", func(r typedRow) any {
			return r["ts"]
		}},
		{"str.to_date", col("d").Cast(dataframe.String).Str().ToDate(""), "date32", func(r typedRow) any { return r["d"] }},
		{"str.to_datetime", dataframe.ConcatStr(col("d").Cast(dataframe.String), " 13:45").Str().ToDatetime("2006-01-02 15:04"), "timestamp[us]", func(r typedRow) any {
			if t, ok := tm(r, "d"); ok {
				return t.Add(13*time.Hour + 45*time.Minute)
			}
			return nil
		}},
		{"abs", col("tiny").Abs(), "int8", func(r typedRow) any {
			if v, ok := r["tiny"].(int64); ok {
				return max(v, -v)
			}
			return nil
		}},
		{"*", col("tiny").Mul(col("utiny")), "int16", func(r typedRow) any {
			a, ok1 := r["tiny"].(int64)
			b, ok2 := r["utiny"].(int64)
			if !ok1 || !ok2 {
				return nil
			}
			return int64(int16(a * b))
		}},
		{"+", col("f32").Add(col("small")), "float32", func(r typedRow) any {
			a, ok1 := r["f32"].(float64)
			b, ok2 := r["small"].(int64)
			if !ok1 || !ok2 {
				return nil
			}
			return float64(float32(a + float64(b)))
		}},
		{"+", col("f32").Add(col("i")), "float64", func(r typedRow) any {
			a, ok1 := r["f32"].(float64)
			b, ok2 := r["i"].(int64)
			if !ok1 || !ok2 {
				return nil
			}
			return a + float64(b)
		}},
		{"+", col("small").Add(col("utiny")), "int16", func(r typedRow) any {
			a, ok1 := r["small"].(int64)
			b, ok2 := r["utiny"].(int64)
			if !ok1 || !ok2 {
				return nil
			}
			return a + b
		}},
	}
}

// addMonthsClamped moves t by n months, clamping the day to the month's
// last, as pandas' DateOffset.
func addMonthsClamped(t time.Time, n int) time.Time {
	first := time.Date(t.Year(), t.Month(), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()).AddDate(0, n, 0)
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(t.Day(), last)-1)
}

// typedValue reads a cell as typedRow holds it.
func typedValue(t *testing.T, col arrow.Array, i int) any {
	if col.IsNull(i) {
		return nil
	}
	switch a := col.(type) {
	case *array.Date32:
		return time.Unix(int64(a.Value(i))*86400, 0).UTC()
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return time.Unix(0, int64(a.Value(i))*int64(unit.Multiplier())).UTC()
	case *array.Duration:
		unit := a.DataType().(*arrow.DurationType).Unit
		return time.Duration(int64(a.Value(i)) * int64(unit.Multiplier()))
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return new(big.Rat).SetFrac(a.Value(i).BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Uint8:
		return int64(a.Value(i))
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	}
	t.Fatalf("no value for %s", col.DataType())
	return nil
}

func sameTyped(a, b any) bool {
	switch x := a.(type) {
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x.Cmp(y) == 0
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)))
	}
	return a == b
}

// TestTypedFunctions computes each operation on dates, timestamps and
// decimals over the DuckDB-written file in 1, 3 and 16 partitions and
// checks every row against the reference.
func TestTypedFunctions(t *testing.T) {
	ctx := newClient(t)
	base := dataframe.ReadParquet("testdata/types/duckdb.parquet")
	whole := compute(t, ctx, base)
	rec := whole.Record()
	rows := make([]typedRow, rec.NumRows())
	for i := range rows {
		rows[i] = typedRow{}
		for c, f := range rec.Schema().Fields() {
			rows[i][f.Name] = typedValue(t, rec.Column(c), i)
		}
	}
	// The file's rows as slices of its record, in 1, 3 and 16 partitions
	// with empty ones: every column starts at an offset into its buffers.
	for _, l := range layouts(len(rows)) {
		parts := make([]arrow.Record, len(l.sizes))
		lo := int64(0)
		for i, n := range l.sizes {
			parts[i] = rec.NewSlice(lo, lo+int64(n))
			lo += int64(n)
		}
		frame := dataframe.FromArrow(parts...)
		for _, p := range parts {
			p.Release()
		}
		for _, c := range typedCases() {
			t.Run(fmt.Sprintf("%s/%s", l.name, c.expr), func(t *testing.T) {
				f := frame.WithColumn("new", c.expr)
				if err := f.Err(); err != nil {
					t.Fatal(err)
				}
				if got := f.Schema().Field(f.Schema().NumFields() - 1).Type.String(); got != c.typ {
					t.Errorf("type %s, want %s", got, c.typ)
				}
				tb := compute(t, ctx, f)
				col := tb.Column("new")
				if col.DataType().String() != c.typ {
					t.Errorf("computed type %s, want %s", col.DataType(), c.typ)
				}
				if col.Len() != len(rows) {
					t.Fatalf("%d rows, want %d", col.Len(), len(rows))
				}
				for i, r := range rows {
					if got, want := typedValue(t, col, i), c.ref(r); !sameTyped(got, want) {
						t.Fatalf("row %d (%v): got %v, want %v", i, r, got, want)
					}
				}
			})
		}
	}
}

// TestTypedGroupBy groups the DuckDB-written file by an expression (the
// year of a date) and aggregates dates, timestamps, exact decimals and an
// expression, against a plain Go reference.
func TestTypedGroupBy(t *testing.T) {
	ctx := newClient(t)
	base := dataframe.ReadParquet("testdata/types/duckdb.parquet")
	whole := compute(t, ctx, base)
	rec := whole.Record()
	type acc struct {
		sum, prod *big.Rat
		minTS     time.Time
		maxD      time.Time
		count     int64
		any       bool
	}
	want := map[int64]*acc{}
	for i := 0; i < int(rec.NumRows()); i++ {
		r := typedRow{}
		for c, f := range rec.Schema().Fields() {
			r[f.Name] = typedValue(t, rec.Column(c), i)
		}
		d, ok := r["d"].(time.Time)
		if !ok {
			continue // a null key belongs to no group
		}
		a := want[int64(d.Year())]
		if a == nil {
			a = &acc{sum: new(big.Rat), prod: new(big.Rat)}
			want[int64(d.Year())] = a
		}
		if p, ok := r["price"].(*big.Rat); ok {
			a.sum.Add(a.sum, p)
			if tiny, ok := r["tiny"].(int64); ok {
				a.prod.Add(a.prod, new(big.Rat).Mul(p, big.NewRat(tiny, 1)))
			}
		}
		if ts, ok := r["ts"].(time.Time); ok && (!a.any || ts.Before(a.minTS)) {
			a.minTS, a.any = ts, true
		}
		if d.After(a.maxD) {
			a.maxD = d
		}
		if r["s"] != nil {
			a.count++
		}
	}
	col := dataframe.Col
	for _, n := range []int{1, 3} {
		out := base.Repartition(n).GroupByExpr(col("d").Dt().Year().Alias("year")).Agg(
			col("price").Sum(), col("ts").Min(), col("d").Max(), col("price").Mul(col("tiny")).Sum().As("revenue"), col("s").Count())
		if err := out.Err(); err != nil {
			t.Fatal(err)
		}
		tb := compute(t, ctx, out)
		types := []string{"int32", "decimal(18, 2)", "timestamp[us, tz=UTC]", "date32", "decimal(18, 2)", "int64"}
		for i, f := range tb.Schema().Fields() {
			if f.Type.String() != types[i] {
				t.Errorf("p=%d: column %s is %s, want %s", n, f.Name, f.Type, types[i])
			}
		}
		if tb.NumRows() != len(want) {
			t.Fatalf("p=%d: %d groups, want %d", n, tb.NumRows(), len(want))
		}
		r := tb.Record()
		for i := 0; i < tb.NumRows(); i++ {
			year := typedValue(t, r.Column(0), i).(int64)
			a := want[year]
			got := []any{typedValue(t, r.Column(1), i), typedValue(t, r.Column(2), i), typedValue(t, r.Column(3), i), typedValue(t, r.Column(4), i), typedValue(t, r.Column(5), i)}
			exp := []any{a.sum, a.minTS, a.maxD, a.prod, a.count}
			for j := range got {
				if !sameTyped(got[j], exp[j]) {
					t.Errorf("p=%d year %d column %s: got %v, want %v", n, year, r.ColumnName(j+1), got[j], exp[j])
				}
			}
		}
	}
}

// TestLocOnDatesAndTimes sorts the DuckDB-written file by a timestamp (µs)
// and by a date, and takes ranges with time.Time and Date bounds.
func TestLocOnDatesAndTimes(t *testing.T) {
	ctx := newClient(t)
	base := dataframe.ReadParquet("testdata/types/duckdb.parquet").Select("i", "d", "ts")
	lo, hi := time.Date(1995, 3, 20, 0, 0, 0, 1, time.UTC), time.Date(1995, 4, 1, 12, 0, 0, 0, time.UTC)
	byTS := compute(t, ctx, base.SetIndex("ts").Loc(lo, hi))
	byD := compute(t, ctx, base.SetIndex("d").Loc(dataframe.Date("1993-01-01"), dataframe.Date("1994-06-30")))
	all := compute(t, ctx, base)
	wantTS, wantD := 0, 0
	for i := 0; i < all.NumRows(); i++ {
		if ts, ok := typedValue(t, all.Column("ts"), i).(time.Time); ok && !ts.Before(lo) && !ts.After(hi) {
			wantTS++
		}
		if d, ok := typedValue(t, all.Column("d"), i).(time.Time); ok && !d.Before(date(1993, 1, 1)) && !d.After(date(1994, 6, 30)) {
			wantD++
		}
	}
	if byTS.NumRows() != wantTS || wantTS == 0 {
		t.Errorf("Loc on ts: %d rows, want %d", byTS.NumRows(), wantTS)
	}
	if byD.NumRows() != wantD || wantD == 0 {
		t.Errorf("Loc on d: %d rows, want %d", byD.NumRows(), wantD)
	}
	_, err := base.SetIndex("d").Loc(lo, hi).Compute(ctx)
	wantErr(t, "a timestamp bound on a date index", err, "Loc", "timestamp", "is date")
}

// TestIsInDatesWithTextAndInstants: on a date column, IsIn reads a string
// as a date, as Eq does, whatever the other values are: beside a zoned
// instant (which makes the comparison one of instants in that zone) the
// string still names the column's day, not midnight in the instant's zone.
func TestIsInDatesWithTextAndInstants(t *testing.T) {
	ctx := newClient(t)
	b := array.NewDate32Builder(memory.DefaultAllocator)
	for _, s := range []string{"2020-01-01", "2020-01-02", "2020-01-03"} {
		d, _ := time.Parse("2006-01-02", s)
		b.Append(arrow.Date32FromTime(d))
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Date32}}, nil), []arrow.Array{col}, 3)
	defer rec.Release()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no time zone database")
	}
	third := time.Date(2020, 1, 3, 0, 0, 0, 0, time.UTC).In(ny) // the instant of the third's midnight in UTC
	for _, c := range []struct {
		values []any
		want   int
	}{
		{[]any{"2020-01-01"}, 1},
		{[]any{"2020-01-01", third}, 2},
		{[]any{third, "2020-01-02"}, 2},
		{[]any{time.Date(2020, 1, 2, 0, 0, 0, 0, ny)}, 0}, // midnight in New York is no date's midnight in UTC
	} {
		tb := compute(t, ctx, dataframe.FromArrow(rec).Filter(dataframe.Col("d").IsIn(c.values...)))
		if tb.NumRows() != c.want {
			t.Errorf("IsIn(%v): %d rows, want %d", c.values, tb.NumRows(), c.want)
		}
	}
}

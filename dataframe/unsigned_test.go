package dataframe_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
)

// TestUint64AboveInt64: uint64 values above int64's range (hashes, IDs)
// are exact as keys, in sorts, in comparisons (with numbers of any sign)
// and in casts to text and float64, and a computation that would see them
// negative fails with an error saying so (they sorted and filtered as
// negative numbers).
func TestUint64AboveInt64(t *testing.T) {
	ctx, done := exampleClient()
	defer done()
	const top = uint64(math.MaxUint64)
	vals := []uint64{top, 1, 1 << 63, 5, top, 1<<63 + 1}
	schema := arrow.NewSchema([]arrow.Field{{Name: "u", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	record := func(from, to int) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		for i := from; i < to; i++ {
			b.Field(0).(*array.Uint64Builder).Append(vals[i])
			b.Field(1).(*array.Int64Builder).Append(int64(i))
		}
		b.Field(0).AppendNull()
		b.Field(1).(*array.Int64Builder).Append(int64(100 + from))
		return b.NewRecord()
	}
	f := dataframe.FromArrow(record(0, 3), record(3, 6))
	text := func(col arrow.Array) []string {
		var out []string
		for i := range col.Len() {
			if col.IsNull(i) {
				out = append(out, "null")
			} else {
				out = append(out, col.ValueStr(i))
			}
		}
		return out
	}
	u := dataframe.Col("u")
	sorted := []string{"1", "5", "9223372036854775808", "9223372036854775809", "18446744073709551615", "18446744073709551615", "null", "null"}
	for _, c := range []struct {
		name string
		f    *dataframe.Frame
		col  string
		want []string
	}{
		{"sort", f.SortValues([]string{"u"}), "u", sorted},
		{"sort descending", f.NLargest(3, "u"), "u", []string{"18446744073709551615", "18446744073709551615", "9223372036854775809"}},
		{"group", f.GroupBy("u").Agg(dataframe.Size().As("n")).SortValues([]string{"u"}), "n", []string{"1", "1", "1", "1", "2"}},
		{"distinct", f.Select("u").DropDuplicates().SortValues([]string{"u"}), "u",
			[]string{"1", "5", "9223372036854775808", "9223372036854775809", "18446744073709551615", "null"}},
		{"join", f.Merge(f.Select("u").DropDuplicates().WithColumn("j", dataframe.Lit(int64(1))), dataframe.MergeOptions{On: []string{"u"}}).
			SortValues([]string{"u"}), "u", sorted}, // null keys match, as pandas
		{"text", f.WithColumn("s", u.Cast(arrow.BinaryTypes.String)).SortValues([]string{"i"}), "s",
			[]string{"18446744073709551615", "1", "9223372036854775808", "5", "18446744073709551615", "9223372036854775809", "null", "null"}},
		{"decimal", f.WithColumn("x", u.Cast(&arrow.Decimal128Type{Precision: 20})).SortValues([]string{"i"}).Limit(1), "x",
			[]string{"18446744073709551615"}},
		{"null keys", f.GroupBy("u").KeepNullKeys().Agg(dataframe.Size().As("n"), dataframe.Count("u").As("c")).SortValues([]string{"u"}), "u",
			[]string{"1", "5", "9223372036854775808", "9223372036854775809", "18446744073709551615", "null"}},
		{"count", f.GroupBy("i").Agg(dataframe.Count("u").As("c"), dataframe.Nunique("u").As("d")).SortValues([]string{"i"}), "c",
			[]string{"1", "1", "1", "1", "1", "1", "0", "0"}},
		{"concat", dataframe.Concat(f, f.Filter(dataframe.Col("i").Lt(int64(1)))).SortValues([]string{"u"}).Limit(3), "u",
			[]string{"1", "5", "9223372036854775808"}},
		{"fill null", f.WithColumn("x", u.FillNull(dataframe.Col("u"))).SortValues([]string{"i"}).Limit(1), "x",
			[]string{"18446744073709551615"}},
		{"filter", f.Filter(u.Gt(int64(3))).SortValues([]string{"u"}), "u", []string{"5", "9223372036854775808", "9223372036854775809", "18446744073709551615", "18446744073709551615"}},
		{"filter by a negative number", f.Filter(u.Gt(int64(-1)).And(u.Le(int64(5)))).SortValues([]string{"u"}), "u", []string{"1", "5"}},
		{"filter by a signed column", f.Filter(u.Le(dataframe.Col("i"))).SortValues([]string{"u"}), "u", []string{"1"}},
		{"filter by itself", f.Filter(u.Ge(dataframe.Col("u")).And(u.Ne(int64(1)))).SortValues([]string{"u"}), "u", sorted[1:6]},
		{"filter by a float", f.Filter(u.Gt(1e19)).SortValues([]string{"u"}), "u", []string{"18446744073709551615", "18446744073709551615"}},
		{"float", f.WithColumn("x", u.Cast(arrow.PrimitiveTypes.Float64)).SortValues([]string{"i"}).Limit(1), "x",
			[]string{strconv.FormatFloat(float64(top), 'g', -1, 64)}},
	} {
		tb, err := c.f.Compute(ctx)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		rec := tb.Record()
		got := text(rec.Column(rec.Schema().FieldIndices(c.col)[0]))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %s = %q, want %q", c.name, c.col, got, c.want)
		}
		tb.Release()
	}
	// Read back into Go: a uint64 holds every value, an int64 fails naming
	// the value, a float64 takes the nearest.
	tb, err := f.SortValues([]string{"u"}).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	var asUint []struct{ U *uint64 }
	if err := tb.Scan(&asUint); err != nil || *asUint[4].U != top || asUint[6].U != nil {
		t.Errorf("Scan into uint64: %v", err)
	}
	var asInt []struct{ U *int64 }
	if err := tb.Scan(&asInt); err == nil || !strings.Contains(err.Error(), "holds 9223372036854775808, which a int64 does not") {
		t.Errorf("Scan into int64: %v", err)
	}
	var asFloat []struct{ U *float64 }
	if err := tb.Scan(&asFloat); err != nil || *asFloat[4].U != float64(top) {
		t.Errorf("Scan into float64: %v", err)
	}
	for name, g := range map[string]*dataframe.Frame{
		"add": f.WithColumn("x", u.Add(int64(1))),
		"max": f.GroupBy("i").Agg(dataframe.Max("u")),
	} {
		_, err := g.Compute(ctx)
		if err == nil || !strings.Contains(err.Error(), "above int64's range") || strings.Contains(err.Error(), "crashed") {
			t.Errorf("%s: err = %v, want one saying a value is above int64's range", name, err)
		}
	}
}

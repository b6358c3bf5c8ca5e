package dataframe_test

import (
	"math/big"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
)

// TestWideDecimalsChosenExactly: decimals of more than 18 digits compute
// as float64, but a choice between values (When, FillNull, Coalesce), a
// cast to a wide decimal and a grouping that keeps null keys give their
// values exactly, in a decimal type (they answered floats typed as
// decimals, failed to cast back, or crashed collecting the result).
func TestWideDecimalsChosenExactly(t *testing.T) {
	ctx, done := exampleClient()
	defer done()
	typ := &arrow.Decimal128Type{Precision: 30, Scale: 4}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "d", Type: typ, Nullable: true}}, nil))
	defer b.Release()
	huge, _ := new(big.Int).SetString("123456789012345678901234", 10)
	for i, v := range []*big.Int{huge, big.NewInt(5), new(big.Int).Neg(huge), nil} {
		b.Field(0).(*array.Int64Builder).Append(int64(i % 2))
		if v == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromBigInt(v))
		}
	}
	f := dataframe.FromArrow(b.NewRecord())
	d := dataframe.Col("d")
	for _, c := range []struct {
		name string
		f    *dataframe.Frame
		want []string // column x, "" for null
	}{
		{"when", f.WithColumn("x", dataframe.When(dataframe.Col("k").Eq(1)).Then(nil).Otherwise(d)),
			[]string{"12345678901234567890.1234", "", "-12345678901234567890.1234", ""}},
		{"fill null", f.WithColumn("x", d.FillNull(7)),
			[]string{"12345678901234567890.1234", "0.0005", "-12345678901234567890.1234", "7.0000"}},
		{"cast", f.WithColumn("x", d.FillNull(int64(0)).Cast(typ)),
			[]string{"12345678901234567890.1234", "0.0005", "-12345678901234567890.1234", "0.0000"}},
		{"cast from int", f.WithColumn("x", dataframe.Col("k").Cast(typ)),
			[]string{"0.0000", "1.0000", "0.0000", "1.0000"}},
		{"null keys", f.GroupBy("d").KeepNullKeys().Agg(dataframe.Size()).SortValues([]string{"d"}).WithColumn("x", d),
			[]string{"-12345678901234567890.1234", "0.0005", "12345678901234567890.1234", ""}},
	} {
		tb, err := c.f.Compute(ctx)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		col := tb.Record().Column(int(tb.Record().NumCols()) - 1) // x is the last
		dec, ok := col.(*array.Decimal128)
		if !ok {
			t.Errorf("%s: x is %s, want a decimal", c.name, col.DataType())
			tb.Release()
			continue
		}
		scale := dec.DataType().(*arrow.Decimal128Type).Scale
		var got []string
		for i := range dec.Len() {
			s := ""
			if dec.IsValid(i) {
				s = dec.Value(i).ToString(scale)
			}
			got = append(got, s)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: x = %q, want %q", c.name, got, c.want)
		}
		tb.Release()
	}
}

// TestWideDecimalKeysExact: decimals of more than 18 digits that one
// float64 holds alike (1e13 apart by 0.0001) are different keys in
// groupings, distinct, joins and nunique, compare and sort in their order (as
// floats they were one key: the fuzzer's join of decimal(30,4) keys
// matched rows DuckDB did not).
func TestWideDecimalKeysExact(t *testing.T) {
	ctx, done := exampleClient()
	defer done()
	typ := &arrow.Decimal128Type{Precision: 30, Scale: 4}
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "d", Type: typ, Nullable: true}}, nil)
	base := decimal128.FromI64(123_300_000_000_000_000) // 12330000000000.0000
	frame := func(tails ...int64) *dataframe.Frame {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		for i, tail := range tails {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			if tail < 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Decimal128Builder).Append(base.Add(decimal128.FromI64(tail)))
			}
		}
		return dataframe.FromArrow(b.NewRecord())
	}
	f := frame(2, 1, -1, 2, 3, 1)
	g := frame(1, 3, 4)
	for _, c := range []struct {
		name string
		f    *dataframe.Frame
		want []string // column d as text, "" for null
	}{
		{"sort", f.SortValues([]string{"d"}), []string{"12330000000000.0001", "12330000000000.0001", "12330000000000.0002", "12330000000000.0002", "12330000000000.0003", ""}},
		{"sort descending", f.SortValues([]string{"d"}, false).Limit(3), []string{"12330000000000.0003", "12330000000000.0002", "12330000000000.0002"}},
		{"group", f.GroupBy("d").Agg(dataframe.Size().As("n")).SortValues([]string{"d"}), []string{"12330000000000.0001", "12330000000000.0002", "12330000000000.0003"}},
		{"distinct", f.Select("d").DropDuplicates().SortValues([]string{"d"}), []string{"12330000000000.0001", "12330000000000.0002", "12330000000000.0003", ""}},
		{"filter by a column", f.WithColumn("e", dataframe.Lit("12330000000000.0002").Cast(typ)).Filter(dataframe.Col("d").Lt(dataframe.Col("e"))).SortValues([]string{"i"}),
			[]string{"12330000000000.0001", "12330000000000.0001"}},
		{"filter by a value", f.Filter(dataframe.Col("d").Ge(dataframe.Lit("12330000000000.0002").Cast(typ))).SortValues([]string{"d"}),
			[]string{"12330000000000.0002", "12330000000000.0002", "12330000000000.0003"}},
		{"join with a narrower decimal", f.Merge(g.WithColumn("d", dataframe.Col("d").Cast(&arrow.Decimal128Type{Precision: 20, Scale: 4})).Select("d"),
			dataframe.MergeOptions{On: []string{"d"}}).SortValues([]string{"i"}), []string{"12330000000000.0001", "12330000000000.0003", "12330000000000.0001"}},
		{"join", f.Merge(g.Select("d"), dataframe.MergeOptions{On: []string{"d"}}).SortValues([]string{"i"}), []string{"12330000000000.0001", "12330000000000.0003", "12330000000000.0001"}},
	} {
		tb, err := c.f.Compute(ctx)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		rec := tb.Record()
		col := rec.Column(rec.Schema().FieldIndices("d")[0]).(*array.Decimal128)
		var got []string
		for i := range col.Len() {
			s := ""
			if col.IsValid(i) {
				s = col.Value(i).ToString(typ.Scale)
			}
			got = append(got, s)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: d = %q, want %q", c.name, got, c.want)
		}
		tb.Release()
	}
	tb, err := f.Agg(dataframe.Nunique("d").As("u")).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	if got := tb.Record().Column(0).ValueStr(0); got != "3" {
		t.Errorf("nunique = %s, want 3", got)
	}
}

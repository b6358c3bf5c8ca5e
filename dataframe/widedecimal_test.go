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

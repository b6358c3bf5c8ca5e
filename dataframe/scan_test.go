package dataframe_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
)

// order has a field for every column type Dusk has, a tag, a nullable
// pointer, a narrower integer and a field left out.
type order struct {
	ID       int64
	Qty      int16 `dusk:"quantity"`
	Price    float64
	Discount *float64
	Flag     string
	Clerk    string
	Paid     bool
	Day      time.Time
	At       time.Time
	Wait     time.Duration
	Total    float64 `dusk:"total"`
	TotalTxt string  `dusk:"total"`
	Note     *string
	Skipped  string `dusk:"-"`
}

// orderRecords builds the columns of want, of their Arrow types, in two
// records (partitions).
func orderRecords(t *testing.T, want []order) []arrow.Record {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "quantity", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "price", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "discount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "flag", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "clerk", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "paid", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "America/New_York"}, Nullable: true},
		{Name: "wait", Type: &arrow.DurationType{Unit: arrow.Second}, Nullable: true},
		{Name: "total", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.Record
	for _, part := range [][]order{want[:2], want[2:]} {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for _, o := range part {
			b.Field(0).(*array.Int32Builder).Append(int32(o.ID))
			b.Field(1).(*array.Int64Builder).Append(int64(o.Qty))
			b.Field(2).(*array.Float32Builder).Append(float32(o.Price))
			if o.Discount == nil {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Float64Builder).Append(*o.Discount)
			}
			if err := b.Field(4).(*array.BinaryDictionaryBuilder).AppendString(o.Flag); err != nil {
				t.Fatal(err)
			}
			b.Field(5).(*array.StringBuilder).Append(o.Clerk)
			b.Field(6).(*array.BooleanBuilder).Append(o.Paid)
			b.Field(7).(*array.Date32Builder).Append(arrow.Date32FromTime(o.Day))
			b.Field(8).(*array.TimestampBuilder).Append(arrow.Timestamp(o.At.UnixMilli()))
			b.Field(9).(*array.DurationBuilder).Append(arrow.Duration(o.Wait / time.Second))
			num, err := decimal128.FromString(o.TotalTxt, 15, 2)
			if err != nil {
				t.Fatal(err)
			}
			b.Field(10).(*array.Decimal128Builder).Append(num)
			if o.Note == nil {
				b.Field(11).AppendNull()
			} else {
				b.Field(11).(*array.StringBuilder).Append(*o.Note)
			}
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	return recs
}

func TestCollectEveryType(t *testing.T) {
	ctx := newClient(t)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	want := []order{
		{ID: 1, Qty: 17, Price: 1.5, Discount: ptr(0.04), Flag: "N", Clerk: "Clerk#1", Paid: true, Day: day("1996-03-13"),
			At: time.Date(2024, 3, 10, 1, 59, 0, 0, ny), Wait: 90 * time.Second, Total: 21168.23, TotalTxt: "21168.23", Note: ptr("rush")},
		{ID: 2, Qty: -3, Price: 0.25, Flag: "R", Clerk: "Clerk#2", Day: day("1970-01-01"),
			At: time.Date(2024, 3, 10, 3, 0, 0, 0, ny), Wait: 0, Total: -0.05, TotalTxt: "-0.05"},
		{ID: 3, Qty: 32767, Price: 1e6, Discount: ptr(0.0), Flag: "N", Clerk: "", Paid: true, Day: day("2024-02-29"),
			At: time.Date(1969, 12, 31, 23, 0, 0, 0, ny), Wait: 36 * time.Hour, Total: 1, TotalTxt: "1.00", Note: ptr("")},
	}
	recs := orderRecords(t, want)
	f := dataframe.FromArrow(recs...)
	for _, r := range recs {
		r.Release()
	}
	got, err := dataframe.Collect[order](ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows; want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !g.At.Equal(w.At) || g.At.Location().String() != "America/New_York" {
			t.Errorf("row %d: At = %v; want %v in its column's zone", i, g.At, w.At)
		}
		g.At, w.At = time.Time{}, time.Time{}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, g, w)
		}
	}

	// Rows and Row.Scan give the same, a row at a time.
	tab, err := f.Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Release()
	var ids []int64
	for r := range tab.Rows() {
		var o order
		if err := r.Scan(&o); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.ID)
		if v, err := r.Value("total"); err != nil || v != want[r.Index()].TotalTxt {
			t.Errorf("row %d: Value(total) = %v, %v; want the decimal's text", r.Index(), v, err)
		}
		if v, err := r.Value("discount"); err != nil || (want[r.Index()].Discount == nil) != (v == nil) {
			t.Errorf("row %d: Value(discount) = %v, %v", r.Index(), v, err)
		}
	}
	if !slices.Equal(ids, []int64{1, 2, 3}) {
		t.Fatalf("Rows gave ids %v", ids)
	}
}

// Fields that do not fit their columns fail, naming the field, the column
// and both types; a null in a field that cannot hold one names the row.
func TestScanMismatches(t *testing.T) {
	ctx := newClient(t)
	type row struct {
		K string
		V *int64
	}
	v := int64(300)
	tab, err := dataframe.FromRecords([]row{{"a", &v}, {"b", nil}}, 1).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Release()
	cases := []struct {
		name string
		dst  any
		want string
	}{
		{"string into int", &[]struct{ K int64 }{}, "field K (int64) cannot hold column K (utf8)"},
		{"int into time", &[]struct{ V time.Time }{}, "field V (time.Time) cannot hold column V (int64)"},
		{"null into value", &[]struct{ V int64 }{}, "column V is null at row 1, and a int64 field cannot hold a null: make it a *int64"},
		{"overflow", &[]struct{ V *int8 }{}, "column V at row 0 holds 300, which a int8 does not"},
		{"missing column", &[]struct{ Price float64 }{}, `field Price: no column named "Price" (columns: K, V)`},
		{"not a slice", &row{}, "want a pointer to a slice of structs"},
	}
	for _, c := range cases {
		err := tab.Scan(c.dst)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v; want it to say %q", c.name, err, c.want)
		}
	}
	var ok []row
	if err := tab.Scan(&ok); err != nil || len(ok) != 2 || *ok[0].V != 300 || ok[1].V != nil {
		t.Fatalf("scan %+v, %v", ok, err)
	}
}

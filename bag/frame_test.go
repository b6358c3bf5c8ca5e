package bag_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/bag"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/kernel"
)

// row is a frame row with every column type, nullable.
type row struct {
	ID    int64    `dusk:"id"`
	Score *float64 `dusk:"score"`
	Name  *string  `dusk:"name"`
	OK    *bool    `dusk:"ok"`
}

func testRows(n int) []row {
	out := make([]row, n)
	for i := range out {
		out[i].ID = int64(i)
		if i%4 != 1 {
			f, s, b := float64(i)/2, fmt.Sprint("n", i%5), i%3 == 0
			out[i].Score, out[i].Name, out[i].OK = &f, &s, &b
		}
	}
	return out
}

// rowMap is the reference: what FromDataFrame makes of r.
func rowMap(r row) map[string]any {
	m := map[string]any{"id": r.ID, "score": nil, "name": nil, "ok": nil}
	if r.Score != nil {
		m["score"], m["name"], m["ok"] = *r.Score, *r.Name, *r.OK
	}
	return m
}

var frameSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: kernel.Int64, Nullable: true},
	{Name: "score", Type: kernel.Float64, Nullable: true},
	{Name: "name", Type: kernel.String, Nullable: true},
	{Name: "ok", Type: kernel.Bool, Nullable: true},
}, nil)

func TestFromDataFrame(t *testing.T) {
	ctx := newClient(t)
	for _, n := range []int{0, 1, 5, 40} {
		rows := testRows(n)
		for _, np := range []int{1, 3, 7} {
			t.Run(fmt.Sprintf("rows=%d/parts=%d", n, np), func(t *testing.T) {
				f := dataframe.FromRecords(rows, np)
				b := bag.FromDataFrame(f)
				if b.NPartitions() != f.NumPartitions() {
					t.Fatalf("%d partitions, the frame has %d", b.NPartitions(), f.NumPartitions())
				}
				parts, err := b.ComputePartitions(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for p, got := range parts {
					want := bag.MustMap(rows[p*n/np:(p+1)*n/np], rowMap)
					if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
						t.Fatalf("partition %d:\n got %v\nwant %v", p, got, want)
					}
				}
				// Frame steps before it run lazily with it.
				got, err := bag.FromDataFrame(f.Filter(dataframe.Col("id").Gt(int64(2)))).Compute(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var want []map[string]any
				for _, r := range rows[min(3, n):] {
					want = append(want, rowMap(r))
				}
				if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
					t.Fatalf("after a filter:\n got %v\nwant %v", got, want)
				}
			})
		}
	}
}

func TestFromDataFrameDictStrings(t *testing.T) {
	ctx := newClient(t)
	dict := kernel.NewString([]int32{0, 1, 3}, []byte("abb"), nil)
	col := kernel.NewDict([]int32{1, 0, 1, 0}, dict, []byte{0b1011})
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "s", Type: kernel.Dict, Nullable: true}}, nil),
		[]arrow.Array{col}, 4)
	defer rec.Release()
	got, err := bag.FromDataFrame(dataframe.FromArrow(rec)).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{"s": "bb"}, {"s": "a"}, {"s": nil}, {"s": "a"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// testMaps are bag items as JSON or Go code makes them: ints as float64 or
// int, nulls as nil or a missing key, and keys no column takes.
func testMaps(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		m := map[string]any{"id": float64(i), "extra": "dropped"}
		switch i % 4 {
		case 0:
			m["score"], m["name"], m["ok"] = float64(i)/2, fmt.Sprint("n", i%5), true
		case 1:
			m["id"], m["score"], m["name"] = i, i, nil // an int, an int for a float
		case 2:
			m["id"], m["ok"] = int64(i), false
		}
		out[i] = m
	}
	return out
}

// tableRows reads a computed table back as maps, the reference's form.
func tableRows(t *testing.T, tb *dataframe.Table) []map[string]any {
	t.Helper()
	out := make([]map[string]any, tb.NumRows())
	for i := range out {
		out[i] = map[string]any{}
	}
	for _, fl := range tb.Schema().Fields() {
		col := tb.Column(fl.Name)
		for i, m := range out {
			if col.IsNull(i) {
				m[fl.Name] = nil
				continue
			}
			switch a := col.(type) {
			case *array.Int64:
				m[fl.Name] = a.Value(i)
			case *array.Float64:
				m[fl.Name] = a.Value(i)
			case *array.Boolean:
				m[fl.Name] = a.Value(i)
			case *array.String:
				m[fl.Name] = a.Value(i)
			default:
				t.Fatalf("column %s is a %T", fl.Name, col)
			}
		}
	}
	return out
}

// wantRow is the reference: m as ToDataFrame's frame holds it.
func wantRow(m map[string]any) map[string]any {
	out := map[string]any{"score": nil, "name": nil, "ok": nil}
	switch id := m["id"].(type) {
	case float64:
		out["id"] = int64(id)
	case int:
		out["id"] = int64(id)
	case int64:
		out["id"] = id
	}
	switch s := m["score"].(type) {
	case float64:
		out["score"] = s
	case int:
		out["score"] = float64(s)
	}
	if v, ok := m["name"]; ok && v != nil {
		out["name"] = v
	}
	if v, ok := m["ok"]; ok && v != nil {
		out["ok"] = v
	}
	return out
}

func TestToDataFrame(t *testing.T) {
	ctx := newClient(t)
	shapes(t, testMaps(30), func(t *testing.T, b *bag.Bag[map[string]any], items []map[string]any) {
		f := bag.ToDataFrame(b, frameSchema)
		if err := f.Err(); err != nil {
			t.Fatal(err)
		}
		if want := max(b.NPartitions(), 1); f.NumPartitions() != want {
			t.Fatalf("%d partitions, want %d", f.NumPartitions(), want)
		}
		if !f.Schema().Equal(frameSchema) {
			t.Fatalf("schema %s, want %s", f.Schema(), frameSchema)
		}
		tb, err := f.Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tb.Release()
		got, want := tableRows(t, tb), bag.MustMap(items, wantRow)
		if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("\n got %v\nwant %v", got, want)
		}

		// Frame steps after it, and a round trip back to a bag.
		back, err := bag.FromDataFrame(f.Filter(dataframe.Col("ok").Eq(true))).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var wantBack []map[string]any
		for _, w := range want {
			if w["ok"] == true {
				wantBack = append(wantBack, w)
			}
		}
		if len(back) != len(wantBack) || (len(back) > 0 && !reflect.DeepEqual(back, wantBack)) {
			t.Fatalf("filter and back:\n got %v\nwant %v", back, wantBack)
		}
	})
}

func TestToDataFrameErrors(t *testing.T) {
	ctx := newClient(t)
	b := bag.FromSequence([]map[string]any{{"id": 1.0}, {"id": 1.5}}, 2)
	_, err := bag.ToDataFrame(b, frameSchema).Compute(ctx)
	if err == nil || !strings.Contains(err.Error(), "column id") || !strings.Contains(err.Error(), "1.5") {
		t.Fatalf("a fraction in an int64 column: error %v", err)
	}
	b = bag.FromSequence([]map[string]any{{"name": 3}}, 1)
	if _, err := bag.ToDataFrame(b, frameSchema).Compute(ctx); err == nil || !strings.Contains(err.Error(), "column name") {
		t.Fatalf("a number in a string column: error %v", err)
	}
	b = bag.FromSequence([]map[string]any{{"id": 1e20}}, 1)
	if _, err := bag.ToDataFrame(b, frameSchema).Compute(ctx); err == nil || !strings.Contains(err.Error(), "column id") {
		t.Fatalf("1e20 in an int64 column: error %v", err)
	}
	bad := arrow.NewSchema([]arrow.Field{{Name: "t", Type: arrow.FixedWidthTypes.Date32}}, nil)
	if err := bag.ToDataFrame(b, bad).Err(); err == nil || !strings.Contains(err.Error(), "date32") {
		t.Fatalf("a date32 column: error %v", err)
	}
	if err := bag.ToDataFrame(b, arrow.NewSchema(nil, nil)).Err(); err == nil {
		t.Fatal("no columns: no error")
	}
	failedBag := bag.Repartition(b, 0)
	if err := bag.ToDataFrame(failedBag, frameSchema).Err(); err == nil {
		t.Fatal("a failed bag: no error")
	}
}

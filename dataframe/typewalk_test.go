package dataframe_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/kernel/typetest"
)

// TestEveryType walks every example type of kernel's logical type table
// through each layer a column meets: comparisons and IsIn with a literal a
// user writes, casts through text, grouping, distinct, sorting and joining
// on it as a key, each aggregation (what the table says the kind takes
// must answer right, the rest must fail naming the column), and writing
// and reading it in each file format. A kind added to the table without
// its support in one layer fails here, in the subtest of that layer.
func TestEveryType(t *testing.T) {
	ctx := newClient(t)
	for _, l := range kernel.Logicals() {
		for _, typ := range l.Examples {
			t.Run(typ.String(), func(t *testing.T) {
				w := newWalk(t, l, typ)
				for _, layer := range walkLayers {
					t.Run(layer.name, func(t *testing.T) { layer.check(t, ctx, w) })
				}
			})
		}
	}
}

// walk is one example type's frame: id (the row), k (a group of three), v
// (the type, from the seeds, null every seventh row), in three partitions.
type walk struct {
	l     kernel.Logical
	typ   arrow.DataType
	seeds []int
	valid []bool
	col   arrow.Array // v, whole
	frame *dataframe.Frame
}

const walkRows = 40

func newWalk(t *testing.T, l kernel.Logical, typ arrow.DataType) *walk {
	w := &walk{l: l, typ: typ}
	for i := 0; i < walkRows; i++ {
		w.seeds = append(w.seeds, i*5%(typetest.MaxSeed+1))
		w.valid = append(w.valid, i%7 != 3 && l.Kind != kernel.KindNull)
	}
	w.col = typetest.Column(typ, w.seeds, w.valid)
	t.Cleanup(w.col.Release)
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: typ, Nullable: true}}, nil)
	var recs []arrow.Record
	for _, cut := range [][2]int{{0, 13}, {13, 27}, {27, walkRows}} {
		ids, ks := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
		for i := cut[0]; i < cut[1]; i++ {
			ids.Append(int64(i))
			ks.Append(int64(i % 3))
		}
		v := array.NewSlice(w.col, int64(cut[0]), int64(cut[1]))
		rec := array.NewRecord(schema, []arrow.Array{ids.NewArray(), ks.NewArray(), v}, int64(cut[1]-cut[0]))
		recs = append(recs, rec)
		t.Cleanup(rec.Release)
	}
	w.frame = dataframe.FromArrow(recs...)
	return w
}

// text is the text of a seed's value (typetest.Text of a row holding it).
func (w *walk) text(s int) string {
	for i, x := range w.seeds {
		if x == s && w.valid[i] {
			return typetest.Text(w.col, i)
		}
	}
	c := typetest.Column(w.typ, []int{s}, []bool{true})
	defer c.Release()
	return typetest.Text(c, 0)
}

// rows are the ids of the rows where keep holds of the seed (valid rows only).
func (w *walk) rows(keep func(s int) bool) []int64 {
	var out []int64
	for i, s := range w.seeds {
		if w.valid[i] && keep(s) {
			out = append(out, int64(i))
		}
	}
	return out
}

// less orders seeds as their values are ordered (bools by truth).
func (w *walk) less(a, b int) bool {
	if w.l.Kind == kernel.KindBool {
		return a%2 < b%2
	}
	return a < b
}

// same reports whether two seeds hold the same value (bools by truth).
func (w *walk) same(a, b int) bool { return !w.less(a, b) && !w.less(b, a) }

// run computes f, failing t on an error.
func run(t *testing.T, ctx context.Context, f *dataframe.Frame) *dataframe.Table {
	t.Helper()
	tb, err := f.Compute(ctx)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(tb.Release)
	return tb
}

// ids reads a table's id column in its order.
func ids(t *testing.T, tb *dataframe.Table) []int64 {
	t.Helper()
	c, ok := tb.Column("id").(*array.Int64)
	if !ok {
		t.Fatalf("no int64 id column in %v", tb.Schema())
	}
	return c.Int64Values()
}

func sortedIDs(t *testing.T, tb *dataframe.Table) []int64 {
	out := slices.Clone(ids(t, tb))
	slices.Sort(out)
	return out
}

var walkLayers = []struct {
	name  string
	check func(t *testing.T, ctx context.Context, w *walk)
}{
	{"identity", func(t *testing.T, ctx context.Context, w *walk) {
		tb := run(t, ctx, w.frame.SortValues([]string{"id"}))
		for i := range w.seeds {
			if got, want := typetest.Text(tb.Column("v"), i), typetest.Text(w.col, i); got != want {
				t.Fatalf("row %d: %s, want %s", i, got, want)
			}
		}
	}},
	{"compare", func(t *testing.T, ctx context.Context, w *walk) {
		if w.l.Kind == kernel.KindNull {
			tb := run(t, ctx, w.frame.Filter(dataframe.Col("v").IsNull()))
			if tb.NumRows() != walkRows {
				t.Fatalf("IsNull kept %d rows, want %d", tb.NumRows(), walkRows)
			}
			return
		}
		const s0 = 5
		lit := typetest.Go(w.typ, s0)
		cases := []struct {
			name string
			pred dataframe.Expr
			keep func(s int) bool
		}{
			{"eq", dataframe.Col("v").Eq(lit), func(s int) bool { return w.same(s, s0) }},
			{"ne", dataframe.Col("v").Ne(lit), func(s int) bool { return !w.same(s, s0) }},
			{"isin", dataframe.Col("v").IsIn(lit, typetest.Go(w.typ, 0)), func(s int) bool { return w.same(s, s0) || w.same(s, 0) }},
		}
		if w.l.Ordered {
			cases = append(cases,
				struct {
					name string
					pred dataframe.Expr
					keep func(s int) bool
				}{"lt", dataframe.Col("v").Lt(lit), func(s int) bool { return w.less(s, s0) }},
				struct {
					name string
					pred dataframe.Expr
					keep func(s int) bool
				}{"ge", dataframe.Col("v").Ge(lit), func(s int) bool { return !w.less(s, s0) }})
		}
		for _, c := range cases {
			tb := run(t, ctx, w.frame.Filter(c.pred))
			if got, want := sortedIDs(t, tb), w.rows(c.keep); !slices.Equal(got, want) {
				t.Errorf("%s %v: rows %v, want %v", c.name, lit, got, want)
			}
		}
		tb := run(t, ctx, w.frame.Filter(dataframe.Col("v").IsNull()))
		if got, want := sortedIDs(t, tb), w.nullRows(); !slices.Equal(got, want) {
			t.Errorf("isnull: rows %v, want %v", got, want)
		}
	}},
	{"cast-through-text", func(t *testing.T, ctx context.Context, w *walk) {
		back := w.typ
		switch {
		case kernel.IsString(back):
			back = kernel.String
		case w.l.Kind == kernel.KindNull:
			back = kernel.String // no text is a null: the strings are null
		}
		f := w.frame.WithColumn("back", dataframe.Col("v").Cast(kernel.String).Cast(back))
		tb := run(t, ctx, f.SortValues([]string{"id"}))
		for i := range w.seeds {
			if got, want := typetest.Text(tb.Column("back"), i), typetest.Text(w.col, i); got != want {
				t.Fatalf("row %d: %s to string (%s) and back is %s", i, want, tb.Column("v").ValueStr(i), got)
			}
		}
	}},
	{"group-key", func(t *testing.T, ctx context.Context, w *walk) {
		tb := run(t, ctx, w.frame.GroupBy("v").Agg(dataframe.Count("id").As("n")))
		got := map[string]int64{}
		for i := 0; i < tb.NumRows(); i++ {
			got[typetest.Text(tb.Column("v"), i)] = tb.Column("n").(*array.Int64).Value(i)
		}
		if want := w.counts(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("groups %v, want %v", got, want)
		}
	}},
	{"distinct", func(t *testing.T, ctx context.Context, w *walk) {
		tb := run(t, ctx, w.frame.Select("v").DropDuplicates())
		want := len(w.counts())
		if w.l.Kind == kernel.KindNull || len(w.nullRows()) > 0 {
			want++
		}
		if tb.NumRows() != want {
			t.Fatalf("%d distinct values, want %d", tb.NumRows(), want)
		}
	}},
	{"sort", func(t *testing.T, ctx context.Context, w *walk) {
		if !w.l.Ordered {
			return
		}
		tb := run(t, ctx, w.frame.SortValues([]string{"v", "id"}))
		var want []int64
		for _, id := range w.rows(func(int) bool { return true }) {
			want = append(want, id)
		}
		sort.SliceStable(want, func(a, b int) bool { return w.less(w.seeds[want[a]], w.seeds[want[b]]) })
		want = append(want, w.nullRows()...) // nulls last, as pandas
		if got := ids(t, tb); !slices.Equal(got, want) {
			t.Fatalf("order %v, want %v", got, want)
		}
	}},
	{"join-key", func(t *testing.T, ctx context.Context, w *walk) {
		right := w.frame.Select("v", "id").Rename(map[string]string{"id": "rid"})
		tb := run(t, ctx, w.frame.Merge(right, dataframe.MergeOptions{On: []string{"v"}}))
		want := 0
		for _, n := range w.counts() {
			want += int(n * n)
		}
		nulls := len(w.nullRows())
		if w.l.Kind == kernel.KindNull {
			nulls = walkRows
		}
		want += nulls * nulls // null keys match each other (README: joins)
		if tb.NumRows() != want {
			t.Fatalf("%d rows joined, want %d", tb.NumRows(), want)
		}
	}},
	{"aggregations", func(t *testing.T, ctx context.Context, w *walk) {
		for _, a := range walkAggs {
			takes := a.takes(w.l)
			t.Run(a.name, func(t *testing.T) {
				tb, err := w.frame.GroupBy("k").Agg(a.make("v").As("r")).Compute(ctx)
				if !takes {
					if err == nil {
						tb.Release()
						t.Fatalf("%s of %s answered; the type table says the kind does not take it", a.name, w.typ)
					}
					if !strings.Contains(err.Error(), "v") {
						t.Fatalf("the error does not name the column: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s of %s: %v", a.name, w.typ, err)
				}
				defer tb.Release()
				for i := 0; i < tb.NumRows(); i++ {
					k := tb.Column("k").(*array.Int64).Value(i)
					var seeds []int
					for r, s := range w.seeds {
						if r%3 == int(k) && w.valid[r] {
							seeds = append(seeds, s)
						}
					}
					got := typetest.Text(tb.Column("r"), i)
					if want := a.want(w, seeds); !sameText(got, want) {
						t.Errorf("group %d: %s of %v is %s, want %s", k, a.name, seeds, got, want)
					}
				}
			})
		}
	}},
	{"files", func(t *testing.T, ctx context.Context, w *walk) {
		dir := t.TempDir()
		name := w.typ.String()
		if kernel.IsString(w.typ) {
			name = "string"
		}
		types := map[string]string{"id": "int64", "k": "int64", "v": name}
		if w.l.Kind == kernel.KindNull {
			delete(types, "v") // read as the reader finds it: all null
		}
		formats := []struct {
			name  string
			write func(string) error
			read  func(string) *dataframe.Frame
		}{
			{"parquet", func(p string) error { _, err := w.frame.ToParquet(ctx, p); return err },
				func(p string) *dataframe.Frame { return dataframe.ReadParquet(p + "/*.parquet") }},
			{"avro", func(p string) error { _, err := w.frame.ToAvro(ctx, p); return err },
				func(p string) *dataframe.Frame { return dataframe.ReadAvro(p + "/*.avro") }},
			{"json", func(p string) error { _, err := w.frame.ToJSON(ctx, p); return err },
				func(p string) *dataframe.Frame {
					return dataframe.ReadJSON(p+"/*.json", dataframe.JSONOptions{Types: types})
				}},
			{"csv", func(p string) error { _, err := w.frame.ToCSV(ctx, p); return err },
				func(p string) *dataframe.Frame {
					return dataframe.ReadCSV(p+"/*.csv", dataframe.CSVOptions{Types: types})
				}},
		}
		for _, f := range formats {
			t.Run(f.name, func(t *testing.T) {
				p := filepath.Join(dir, f.name)
				if err := f.write(p); err != nil {
					t.Fatalf("write: %v", err)
				}
				tb := run(t, ctx, f.read(p).SortValues([]string{"id"}))
				if tb.NumRows() != walkRows {
					t.Fatalf("%d rows read back, want %d", tb.NumRows(), walkRows)
				}
				for i := range w.seeds {
					if got, want := typetest.Text(tb.Column("v"), i), typetest.Text(w.col, i); got != want {
						t.Fatalf("row %d read back as %s (%s), want %s", i, got, tb.Column("v").DataType(), want)
					}
				}
				if w.l.Kind == kernel.KindNull && f.name == "parquet" && tb.Column("v").DataType().ID() != arrow.NULL {
					t.Fatalf("read back as %s, want null", tb.Column("v").DataType())
				}
				if ts, ok := w.typ.(*arrow.TimestampType); ok { // the zone survives, not the instant alone
					if got, ok := tb.Column("v").DataType().(*arrow.TimestampType); !ok || got.TimeZone != ts.TimeZone {
						t.Fatalf("read back as %s, want the zone of %s", tb.Column("v").DataType(), ts)
					}
				}
			})
		}
	}},
}

func (w *walk) nullRows() []int64 {
	var out []int64
	for i := range w.seeds {
		if !w.valid[i] {
			out = append(out, int64(i))
		}
	}
	return out
}

// counts are the valid rows of each value, by its text.
func (w *walk) counts() map[string]int64 {
	out := map[string]int64{}
	for i := range w.seeds {
		if w.valid[i] {
			out[typetest.Text(w.col, i)]++
		}
	}
	return out
}

// sameText compares two texts, as numbers within 1e-9 where both are.
func sameText(got, want string) bool {
	if got == want {
		return true
	}
	var g, x float64
	if _, err := fmt.Sscan(got, &g); err != nil {
		return false
	}
	if _, err := fmt.Sscan(want, &x); err != nil {
		return false
	}
	return math.Abs(g-x) <= 1e-9*math.Max(1, math.Abs(x))
}

// walkAggs are the aggregations, which kinds take each, and each one's
// answer over a group's seeds by plain means, as text.
var walkAggs = []struct {
	name  string
	make  func(string) dataframe.Agg
	takes func(kernel.Logical) bool
	want  func(w *walk, seeds []int) string
}{
	{"sum", dataframe.Sum, additive, func(w *walk, s []int) string { return w.sum(s) }},
	{"mean", dataframe.Mean, numeric, func(w *walk, s []int) string { return num(sumOf(w, s) / float64(len(s))) }},
	{"var", dataframe.Var, numeric, func(w *walk, s []int) string { return num(varOf(w, s)) }},
	{"std", dataframe.Std, numeric, func(w *walk, s []int) string { return num(math.Sqrt(varOf(w, s))) }},
	{"median", dataframe.Median, numeric, func(w *walk, s []int) string {
		v := make([]float64, len(s))
		for i, x := range s {
			v[i] = typetest.Number(w.typ, x)
		}
		slices.Sort(v)
		return num((v[(len(v)-1)/2] + v[len(v)/2]) / 2)
	}},
	{"min", dataframe.Min, ordered, func(w *walk, s []int) string {
		return w.text(slices.MinFunc(s, func(a, b int) int { return cmpBy(w, a, b) }))
	}},
	{"max", dataframe.Max, ordered, func(w *walk, s []int) string {
		return w.text(slices.MaxFunc(s, func(a, b int) int { return cmpBy(w, a, b) }))
	}},
	{"first", dataframe.First, any_, func(w *walk, s []int) string { return w.textOr(s, 0) }},
	{"last", dataframe.Last, any_, func(w *walk, s []int) string { return w.textOr(s, len(s)-1) }},
	{"count", dataframe.Count, any_, func(w *walk, s []int) string { return fmt.Sprint(len(s)) }},
	{"nunique", dataframe.Nunique, any_, func(w *walk, s []int) string {
		seen := map[string]bool{}
		for _, x := range s {
			seen[w.text(x)] = true
		}
		return fmt.Sprint(len(seen))
	}},
}

func numeric(l kernel.Logical) bool  { return l.Numeric }
func additive(l kernel.Logical) bool { return l.Additive }
func ordered(l kernel.Logical) bool  { return l.Ordered }
func any_(kernel.Logical) bool       { return true }

func (w *walk) textOr(s []int, i int) string {
	if len(s) == 0 {
		return "null"
	}
	return w.text(s[i])
}

func cmpBy(w *walk, a, b int) int {
	switch {
	case w.less(a, b):
		return -1
	case w.less(b, a):
		return 1
	}
	return 0
}

// sum is the text of the sum of seeds' values: a number, or for
// durations their total in nanoseconds.
func (w *walk) sum(s []int) string {
	if w.l.Kind == kernel.KindDuration {
		var total time.Duration
		for _, x := range s {
			total += typetest.Go(w.typ, x).(time.Duration)
		}
		return fmt.Sprint(int64(total))
	}
	return num(sumOf(w, s))
}

func num(f float64) string { return fmt.Sprintf("%.9f", f) }

func sumOf(w *walk, s []int) float64 {
	var sum float64
	for _, x := range s {
		sum += typetest.Number(w.typ, x)
	}
	return sum
}

func varOf(w *walk, s []int) float64 {
	mean := sumOf(w, s) / float64(len(s))
	var ss float64
	for _, x := range s {
		d := typetest.Number(w.typ, x) - mean
		ss += d * d
	}
	return ss / float64(len(s)-1)
}

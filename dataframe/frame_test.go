package dataframe_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk/dataframe"
)

func TestCompute(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(11, 300)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			var want [][]any
			for _, r := range rows {
				want = append(want, r.values())
			}
			checkTable(t, tf.frame, compute(t, ctx, tf.frame), testColumns, testTypes, want, 0)
			if got := tf.frame.Columns(); fmt.Sprint(got) != fmt.Sprint(testColumns) {
				t.Errorf("Columns() = %v, want %v", got, testColumns)
			}
		})
	}
}

func TestLen(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(12, 300)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			n, err := tf.frame.Len(ctx)
			if err != nil || n != int64(len(rows)) {
				t.Errorf("Len = %d, %v; want %d", n, err, len(rows))
			}
			f := tf.frame.Filter(col("B"))
			want := int64(len(keep(rows, func(r testRow) tri { return boolOf(r.B) })))
			if n, err := f.Len(ctx); err != nil || n != want {
				t.Errorf("Len after a filter = %d, %v; want %d", n, err, want)
			}
			if n, err := tf.frame.GroupBy("K").Agg(dataframe.Size()).Len(ctx); err != nil || n != 7 {
				t.Errorf("Len of a group-by on K = %d, %v; want 7 (five areas, zz, solo)", n, err)
			}
		})
	}
	// More partitions than one reduction task combines.
	many := make([]int, 40)
	for i := range many {
		many[i] = i % 3 * 5
	}
	total := 0
	for _, n := range many {
		total += n
	}
	f := arrowFrame(t, genRows(13, total), many)
	if n, err := f.Len(ctx); err != nil || n != int64(total) {
		t.Errorf("Len over 40 partitions = %d, %v; want %d", n, err, total)
	}
}

func TestHead(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(14, 300)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			for _, n := range []int{0, 1, 5, 149, 150, 151, 170, 299, 300, 301, 10000} {
				tb, err := tf.frame.Head(ctx, n)
				if err != nil {
					t.Fatalf("Head(%d): %v", n, err)
				}
				var want [][]any
				for _, r := range rows[:min(n, len(rows))] {
					want = append(want, r.values())
				}
				t.Run(fmt.Sprint(n), func(t *testing.T) {
					defer tb.Release()
					checkTable(t, tf.frame, tb, testColumns, testTypes, want, 0)
				})
			}
		})
	}
	// Head of a filtered frame whose first partitions keep nothing.
	f := arrowFrame(t, rows, layouts(len(rows))[2].sizes).Filter(col("ID").Ge(250))
	tb, err := f.Head(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	var want [][]any
	for _, r := range rows[250:270] {
		want = append(want, r.values())
	}
	checkTable(t, f, tb, testColumns, testTypes, want, 0)
}

func TestPersist(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(15, 300)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			p, err := tf.frame.WithColumn("x", col("I").Mul(2)).Persist(ctx)
			if err != nil {
				t.Fatalf("Persist: %v", err)
			}
			if p.NumPartitions() != tf.frame.NumPartitions() {
				t.Errorf("persisted: %d partitions, want %d", p.NumPartitions(), tf.frame.NumPartitions())
			}
			cols := append(append([]string(nil), testColumns...), "x")
			types := append(append([]string(nil), testTypes...), "int64")
			var all [][]any
			for _, r := range rows {
				var x any
				if r.I != nil {
					x = 2 * *r.I
				}
				all = append(all, append(r.values(), x))
			}
			// Twice from the persisted partitions.
			checkTable(t, p, compute(t, ctx, p), cols, types, all, 0)
			checkTable(t, p, compute(t, ctx, p), cols, types, all, 0)
			// Persisting again is the same frame.
			again, err := p.Persist(ctx)
			if err != nil {
				t.Fatalf("Persist of a persisted frame: %v", err)
			}
			checkTable(t, again, compute(t, ctx, again), cols, types, all, 0)

			// Steps on top of it.
			f := p.Filter(col("x").Gt(10).And(col("S").NotNull()))
			var want [][]any
			for _, v := range all {
				if x, ok := v[10].(int64); ok && x > 10 && v[5] != nil {
					want = append(want, v)
				}
			}
			checkTable(t, f, compute(t, ctx, f), cols, types, want, 0)
			if n, err := p.Len(ctx); err != nil || n != int64(len(rows)) {
				t.Errorf("Len of the persisted frame = %d, %v; want %d", n, err, len(rows))
			}
			tb, err := p.Head(ctx, 3)
			if err != nil {
				t.Fatalf("Head of the persisted frame: %v", err)
			}
			checkTable(t, p, tb, cols, types, all[:3], 0)
			tb.Release()
			g := p.GroupBy("KI").Agg(dataframe.Sum("x"))
			sums := map[int64]int64{}
			for _, r := range rows {
				if r.KI != nil && r.I != nil {
					sums[*r.KI] += 2 * *r.I
				}
			}
			want = nil
			for k := int64(0); k < 4; k++ {
				want = append(want, []any{k, sums[k]})
			}
			checkTable(t, g, compute(t, ctx, g), []string{"KI", "sum(x)"}, []string{"int64", "int64"}, want, 0)

			// Released, the partitions are gone: a clear error, no hang.
			p.Release()
			p.Release() // a second release does nothing
			short, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			if tb, err := p.Compute(short); err == nil {
				tb.Release()
				t.Errorf("Compute after Release: no error")
			} else if short.Err() != nil {
				t.Errorf("Compute after Release hung until the deadline: %v", err)
			}
		})
	}
}

// TestPersistSurvivesOtherComputations checks that computing the frame the
// persisted one came from, and releasing that result, leaves the persisted
// partitions in place.
func TestPersistSurvivesOtherComputations(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(16, 200)
	f := arrowFrame(t, rows, layouts(len(rows))[1].sizes)
	p, err := f.Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	var want [][]any
	for _, r := range rows {
		want = append(want, r.values())
	}
	compute(t, ctx, f).Release()
	if n, err := f.Len(ctx); err != nil || n != int64(len(rows)) {
		t.Fatalf("Len = %d, %v", n, err)
	}
	checkTable(t, p, compute(t, ctx, p), testColumns, testTypes, want, 0)
}

type item struct {
	Name  string
	Qty   *int
	Price float64
	OK    bool
}

func TestTableString(t *testing.T) {
	ctx := newClient(t)
	items := []item{
		{"apple", ptr(3), 1.5, true},
		{"kiwi", nil, 12.25, false},
		{"fig", ptr(-10), 0.1, true},
	}
	tb := compute(t, ctx, dataframe.FromRecords(items, 2))
	want := "" +
		"Name    Qty  Price  OK\n" +
		"apple     3    1.5  true\n" +
		"kiwi   null  12.25  false\n" +
		"fig     -10    0.1  true\n" +
		"[3 rows x 4 columns]\n"
	if got := tb.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}

	type num struct{ N int }
	for _, n := range []int{0, 20, 21, 25} {
		nums := make([]num, n)
		for i := range nums {
			nums[i].N = i * 10
		}
		tb := compute(t, ctx, dataframe.FromRecords(nums, 3))
		got := tb.String()
		var b strings.Builder
		width := len(fmt.Sprint((n - 1) * 10))
		if n <= 1 {
			width = 1
		}
		fmt.Fprintf(&b, "%*s\n", width, "N")
		for i := 0; i < n; i++ {
			if n > 20 && i == 10 {
				fmt.Fprintf(&b, "%*s…\n", width-1, "")
			}
			if n > 20 && i >= 10 && i < n-10 {
				continue
			}
			fmt.Fprintf(&b, "%*d\n", width, i*10)
		}
		fmt.Fprintf(&b, "[%d rows x 1 columns]\n", n)
		if got != b.String() {
			t.Errorf("%d rows: String() =\n%s\nwant\n%s", n, got, b.String())
		}
		if lines := strings.Count(got, "\n"); n > 20 && lines != 1+10+1+10+1 {
			t.Errorf("%d rows: %d lines, want 23", n, lines)
		}
	}
}

// TestEstimated checks what the planner expects of frames: a Parquet
// file's rows from its footer and fewer bytes for fewer columns, the same
// of its persisted partitions, and nothing known of a frame that failed.
func TestEstimated(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(16, 300)
	f := parquetFrame(t, rows, []int{100, 200})
	bytes, n := f.Estimated()
	if n != int64(len(rows)) || bytes <= 0 {
		t.Fatalf("estimated %d bytes, %d rows; want some bytes and %d rows", bytes, n, len(rows))
	}
	if one, n1 := f.Select("I").Estimated(); one <= 0 || one >= bytes || n1 != n {
		t.Errorf("one column: %d bytes, %d rows; want fewer than %d bytes, %d rows", one, n1, bytes, n)
	}
	p, err := f.Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if pb, pn := p.Estimated(); pb <= 0 || pn != n {
		t.Errorf("persisted: %d bytes, %d rows; want some bytes, %d rows", pb, pn, n)
	}
	if fb, fn := f.Select("no such column").Estimated(); fb != -1 || fn != -1 {
		t.Errorf("a failed frame: %d bytes, %d rows; want -1, -1", fb, fn)
	}
}

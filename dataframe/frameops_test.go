package dataframe_test

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/duskdata/dusk/dataframe"
)

// frameOpsFrames are the layouts the clean-up verbs are checked on: Arrow
// records and CSV files (dictionary strings) in 1, 3 and 16 partitions.
func frameOpsFrames(t *testing.T, rows []testRow) []testFrame {
	var out []testFrame
	for _, src := range []source{{"arrow", arrowFrame}, {"csv", csvFrame}} {
		for _, l := range layouts(len(rows)) {
			out = append(out, testFrame{name: src.name + "/" + l.name, frame: src.make(t, rows, l.sizes), rows: rows})
		}
	}
	return out
}

func allValues(rows []testRow) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = r.values()
	}
	return out
}

// project picks columns (by index into testColumns) of reference rows.
func project(rows [][]any, idx ...int) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		for _, j := range idx {
			out[i] = append(out[i], r[j])
		}
	}
	return out
}

func TestFrameOps(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(31, 240)
	all := allValues(rows)
	for _, tf := range frameOpsFrames(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			f := tf.frame
			renamed := f.Rename(map[string]string{"I": "eye", "K": "kay"})
			cols := slices.Clone(testColumns)
			cols[1], cols[8] = "eye", "kay"
			checkTable(t, renamed, compute(t, ctx, renamed), cols, testTypes, all, 0)
			picked := renamed.Filter(col("eye").Gt(0)).Select("kay", "eye")
			checkTable(t, picked, compute(t, ctx, picked), []string{"kay", "eye"}, []string{"utf8", "int64"},
				project(keep(rows, func(r testRow) tri { return cmp3(r.I, ptr(int64(0)), ">") }), 8, 1), 0)

			dropped := f.Drop("S", "T", "B")
			checkTable(t, dropped, compute(t, ctx, dropped), []string{"ID", "I", "J", "F", "G", "K", "KI"},
				[]string{"int64", "int64", "int64", "float64", "float64", "utf8", "int64"}, project(all, 0, 1, 2, 3, 4, 8, 9), 0)

			filled := f.FillNull(map[string]any{"I": 0, "T": "none", "F": col("G")})
			var wantFilled [][]any
			for _, r := range rows {
				v := r.values()
				if v[1] == nil {
					v[1] = int64(0)
				}
				if v[6] == nil {
					v[6] = "none"
				}
				if v[3] == nil {
					v[3] = v[4]
				}
				wantFilled = append(wantFilled, v)
			}
			checkTable(t, filled, compute(t, ctx, filled), testColumns, testTypes, wantFilled, 0)

			noNulls := f.DropNulls("I", "F")
			checkTable(t, noNulls, compute(t, ctx, noNulls), testColumns, testTypes,
				keep(rows, func(r testRow) tri { return truth(r.I != nil && r.F != nil) }), 0)

			for _, n := range []int{0, 7, 1000} {
				first := f.Limit(n)
				checkTable(t, first, compute(t, ctx, first), testColumns, testTypes, all[:min(n, len(all))], 0)
				last := f.Tail(n)
				checkTable(t, last, compute(t, ctx, last), testColumns, testTypes, all[max(0, len(all)-n):], 0)
			}
			for _, s := range [][2]int{{0, 5}, {3, 0}, {7, 50}, {59, 3}, {60, -1}, {61, -1}, {1000, 4}, {0, -1}, {100, -1}} {
				part := f.Slice(s[0], s[1])
				end := len(all)
				if s[1] >= 0 {
					end = min(s[0]+s[1], end)
				}
				checkTable(t, part, compute(t, ctx, part), testColumns, testTypes, all[min(s[0], end):end], 0)
			}

			sorted := f.SortValues([]string{"F", "ID"}, false, true)
			top := sorted.Limit(9)
			if got := top.Explain(); !strings.Contains(got, "9 largest by F, ID") {
				t.Errorf("a sort then a limit is not a top-n:\n%s", got)
			}
			full := tableRows(t, compute(t, ctx, sorted))
			checkTable(t, top, compute(t, ctx, top), testColumns, testTypes, full[:9], 0)
			page := sorted.Slice(4, 9)
			checkTable(t, page, compute(t, ctx, page), testColumns, testTypes, full[4:13], 0)
			rest := sorted.Slice(20, -1)
			checkTable(t, rest, compute(t, ctx, rest), testColumns, testTypes, full[20:], 0)

			s1 := tableRows(t, compute(t, ctx, f.Sample(0.3, 42)))
			s2 := tableRows(t, compute(t, ctx, f.Sample(0.3, 42)))
			checkRows(t, s1, s2, 0)
			if len(s1) < len(rows)/6 || len(s1) > len(rows)/2 {
				t.Errorf("Sample(0.3) kept %d rows of %d", len(s1), len(rows))
			}
			seen := map[string]bool{}
			for _, r := range all {
				seen[fmt.Sprint(r...)] = true
			}
			for _, r := range s1 {
				if !seen[fmt.Sprint(r...)] {
					t.Fatalf("Sample made a row that is not in the frame: %v", r)
				}
			}
		})
	}
}

// TestConcat stacks a frame on a narrower one whose I is float: columns
// line up by name, I becomes float64, and the missing columns are null.
func TestConcat(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(32, 120)
	other := genRows(33, 50)
	a := arrowFrame(t, rows, []int{60, 0, 60})
	b := arrowFrame(t, other, []int{25, 25}).Select("I", "ID").WithColumn("I", col("I").Cast(dataframe.Float64))
	out := dataframe.Concat(a, b)
	if got := out.NumPartitions(); got != 5 {
		t.Errorf("%d partitions, want 5", got)
	}
	types := slices.Clone(testTypes)
	types[1] = "float64"
	var want [][]any
	for _, r := range rows {
		v := r.values()
		if v[1] != nil {
			v[1] = float64(v[1].(int64))
		}
		want = append(want, v)
	}
	for _, r := range other {
		v := make([]any, len(testColumns))
		v[0] = r.ID
		if r.I != nil {
			v[1] = float64(*r.I)
		}
		want = append(want, v)
	}
	checkTable(t, out, compute(t, ctx, out), testColumns, types, want, 0)
	narrow := out.Select("ID", "K")
	checkTable(t, narrow, compute(t, ctx, narrow), []string{"ID", "K"}, []string{"int64", "utf8"}, project(want, 0, 8), 0)

	bad := dataframe.Concat(a, b.WithColumn("K", col("ID")))
	wantErr(t, "Concat of a string and an int column", bad.Err(), "column K", "string", "int64")
}

// TestDescribe checks Describe against a plain reference: pandas' count,
// mean, sample std, min, linear-interpolated quartiles and max.
func TestDescribe(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(34, 200)
	tb, err := arrowFrame(t, rows, []int{80, 0, 120}).Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	got := tableRows(t, tb)
	ref := func(vals []float64) []any {
		sort.Float64s(vals)
		n := float64(len(vals))
		mean, m2 := 0.0, 0.0
		for _, v := range vals {
			mean += v / n
		}
		for _, v := range vals {
			m2 += (v - mean) * (v - mean)
		}
		q := func(p float64) float64 {
			pos := p * (n - 1)
			lo := math.Floor(pos)
			if int(lo)+1 >= len(vals) {
				return vals[int(lo)]
			}
			return vals[int(lo)] + (pos-lo)*(vals[int(lo)+1]-vals[int(lo)])
		}
		return []any{n, mean, math.Sqrt(m2 / (n - 1)), vals[0], q(0.25), q(0.5), q(0.75), vals[len(vals)-1]}
	}
	var is, fs []float64
	for _, r := range rows {
		if r.I != nil {
			is = append(is, float64(*r.I))
		}
		if r.F != nil {
			fs = append(fs, *r.F)
		}
	}
	wantI, wantF := ref(is), ref(fs)
	stats := []string{"count", "mean", "std", "min", "25%", "50%", "75%", "max"}
	if cols := tb.Schema().NumFields(); cols != 1+6 { // ID I J F G KI
		t.Fatalf("%d columns, want statistic and the six numeric ones", cols)
	}
	for s, name := range stats {
		if got[s][0] != name {
			t.Fatalf("row %d is %v, want %s", s, got[s][0], name)
		}
		if !sameValue(got[s][2], wantI[s], 1e-9) || !sameValue(got[s][4], wantF[s], 1e-9) {
			t.Errorf("%s: I %v F %v, want %v and %v", name, got[s][2], got[s][4], wantI[s], wantF[s])
		}
	}
}

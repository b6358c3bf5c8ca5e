package bench

import (
	"cmp"
	"math"
	"slices"
)

// Question is one of db-benchmark's questions with a plain-Go reference
// answer: maps and sorts, written to be obviously right rather than fast.
type Question[T any] struct {
	ID   string // "q1".."q10", "j1".."j5"
	Text string // db-benchmark's wording
	Ref  func(T) Answer
}

// GroupByQuestions are db-benchmark's ten groupby questions. The answers'
// columns are the keys, then the results named as in the pandas solution.
var GroupByQuestions = []Question[*GroupByTable]{
	{"q1", "sum v1 by id1", refQ1},
	{"q2", "sum v1 by id1:id2", refQ2},
	{"q3", "sum v1 mean v3 by id3", refQ3},
	{"q4", "mean v1:v3 by id4", refQ4},
	{"q5", "sum v1:v3 by id6", refQ5},
	{"q6", "median v3 sd v3 by id4 id5", refQ6},
	{"q7", "max v1 - min v2 by id3", refQ7},
	{"q8", "largest two v3 by id6", refQ8},
	{"q9", "regression v1 v2 by id2 id4", refQ9},
	{"q10", "sum v3 count by id1:id6", refQ10},
}

// groups returns the row numbers of each group of n rows by key, in no
// particular order.
func groups[K comparable](n int, key func(i int) K) [][]int {
	at := map[K]int{}
	var out [][]int
	for i := range n {
		k := key(i)
		g, ok := at[k]
		if !ok {
			g = len(out)
			at[k] = g
			out = append(out, nil)
		}
		out[g] = append(out[g], i)
	}
	return out
}

// answer returns the row one function makes of each group, in canonical
// order: the groups sorted by their keys, the answer's first columns.
func answer(cols []string, keys []column, gs [][]int, row func(g []int) []any) Answer {
	slices.SortFunc(gs, func(g, h []int) int { return compareAt(keys, g[0], h[0]) })
	a := Answer{Columns: cols, Rows: make([][]any, 0, len(gs))}
	for _, g := range gs {
		a.Rows = append(a.Rows, row(g))
	}
	return a
}

// keys returns the named columns of t, to order groups by.
func (t *GroupByTable) keys(names ...string) []column {
	var out []column
	for _, c := range t.columns() {
		if slices.Contains(names, c.name) {
			out = append(out, c)
		}
	}
	return out
}

func sumInts(v []int64, g []int) int64 {
	var s int64
	for _, i := range g {
		s += v[i]
	}
	return s
}

func sumFloats(v []float64, g []int) float64 {
	var s float64
	for _, i := range g {
		s += v[i]
	}
	return s
}

func meanInts(v []int64, g []int) float64 { return float64(sumInts(v, g)) / float64(len(g)) }

func meanFloats(v []float64, g []int) float64 { return sumFloats(v, g) / float64(len(g)) }

func picked(v []float64, g []int) []float64 {
	out := make([]float64, len(g))
	for j, i := range g {
		out[j] = v[i]
	}
	return out
}

func median(v []float64, g []int) float64 {
	s := picked(v, g)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 0 {
		return (s[m-1] + s[m]) / 2
	}
	return s[m]
}

// sd is the sample standard deviation (ddof 1): NaN for one row.
func sd(v []float64, g []int) float64 {
	if len(g) < 2 {
		return math.NaN()
	}
	m := meanFloats(v, g)
	var ss float64
	for _, i := range g {
		ss += (v[i] - m) * (v[i] - m)
	}
	return math.Sqrt(ss / float64(len(g)-1))
}

// r2 is the squared Pearson correlation of x and y: NaN where either is
// constant.
func r2(x, y []int64, g []int) float64 {
	mx, my := meanInts(x, g), meanInts(y, g)
	var sxy, sxx, syy float64
	for _, i := range g {
		dx, dy := float64(x[i])-mx, float64(y[i])-my
		sxy, sxx, syy = sxy+dx*dy, sxx+dx*dx, syy+dy*dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	r := sxy / math.Sqrt(sxx*syy)
	return r * r
}

func refQ1(t *GroupByTable) Answer {
	gs := groups(t.Len(), func(i int) string { return t.ID1[i] })
	return answer([]string{"id1", "v1"}, t.keys("id1"), gs, func(g []int) []any {
		return []any{t.ID1[g[0]], sumInts(t.V1, g)}
	})
}

func refQ2(t *GroupByTable) Answer {
	gs := groups(t.Len(), func(i int) [2]string { return [2]string{t.ID1[i], t.ID2[i]} })
	return answer([]string{"id1", "id2", "v1"}, t.keys("id1", "id2"), gs, func(g []int) []any {
		return []any{t.ID1[g[0]], t.ID2[g[0]], sumInts(t.V1, g)}
	})
}

func refQ3(t *GroupByTable) Answer {
	gs := groups(t.Len(), func(i int) string { return t.ID3[i] })
	return answer([]string{"id3", "v1", "v3"}, t.keys("id3"), gs, func(g []int) []any {
		return []any{t.ID3[g[0]], sumInts(t.V1, g), meanFloats(t.V3, g)}
	})
}

func refQ4(t *GroupByTable) Answer {
	gs := groups(t.Len(), func(i int) int64 { return t.ID4[i] })
	return answer([]string{"id4", "v1", "v2", "v3"}, t.keys("id4"), gs, func(g []int) []any {
		return []any{t.ID4[g[0]], meanInts(t.V1, g), meanInts(t.V2, g), meanFloats(t.V3, g)}
	})
}

func refQ5(t *GroupByTable) Answer {
	gs := groups(t.Len(), func(i int) int64 { return t.ID6[i] })
	return answer([]string{"id6", "v1", "v2", "v3"}, t.keys("id6"), gs, func(g []int) []any {
		return []any{t.ID6[g[0]], sumInts(t.V1, g), sumInts(t.V2, g), sumFloats(t.V3, g)}
	})
}

func refQ6(t *GroupByTable) Answer {
	gs := groups(t.Len(), func(i int) [2]int64 { return [2]int64{t.ID4[i], t.ID5[i]} })
	return answer([]string{"id4", "id5", "median_v3", "sd_v3"}, t.keys("id4", "id5"), gs, func(g []int) []any {
		return []any{t.ID4[g[0]], t.ID5[g[0]], median(t.V3, g), sd(t.V3, g)}
	})
}

func refQ7(t *GroupByTable) Answer {
	gs := groups(t.Len(), func(i int) string { return t.ID3[i] })
	return answer([]string{"id3", "range_v1_v2"}, t.keys("id3"), gs, func(g []int) []any {
		hi, lo := t.V1[g[0]], t.V2[g[0]]
		for _, i := range g {
			hi, lo = max(hi, t.V1[i]), min(lo, t.V2[i])
		}
		return []any{t.ID3[g[0]], hi - lo}
	})
}

// refQ8 keeps the two largest v3 of each id6 (one where the group has one
// row); in canonical order they come by id6, then v3 ascending.
func refQ8(t *GroupByTable) Answer {
	gs := groups(t.Len(), func(i int) int64 { return t.ID6[i] })
	slices.SortFunc(gs, func(g, h []int) int { return cmp.Compare(t.ID6[g[0]], t.ID6[h[0]]) })
	a := Answer{Columns: []string{"id6", "v3"}}
	for _, g := range gs {
		v := picked(t.V3, g)
		slices.Sort(v)
		for _, x := range v[max(0, len(v)-2):] {
			a.Rows = append(a.Rows, []any{t.ID6[g[0]], x})
		}
	}
	return a
}

func refQ9(t *GroupByTable) Answer {
	type key struct {
		id2 string
		id4 int64
	}
	gs := groups(t.Len(), func(i int) key { return key{t.ID2[i], t.ID4[i]} })
	return answer([]string{"id2", "id4", "r2"}, t.keys("id2", "id4"), gs, func(g []int) []any {
		return []any{t.ID2[g[0]], t.ID4[g[0]], r2(t.V1, t.V2, g)}
	})
}

func refQ10(t *GroupByTable) Answer {
	type key struct {
		id1, id2, id3 string
		id4, id5, id6 int64
	}
	gs := groups(t.Len(), func(i int) key {
		return key{t.ID1[i], t.ID2[i], t.ID3[i], t.ID4[i], t.ID5[i], t.ID6[i]}
	})
	cols := []string{"id1", "id2", "id3", "id4", "id5", "id6", "v3", "count"}
	return answer(cols, t.keys("id1", "id2", "id3", "id4", "id5", "id6"), gs, func(g []int) []any {
		i := g[0]
		return []any{t.ID1[i], t.ID2[i], t.ID3[i], t.ID4[i], t.ID5[i], t.ID6[i], sumFloats(t.V3, g), int64(len(g))}
	})
}

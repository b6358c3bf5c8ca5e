package dataframe_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/duskdata/dusk/dataframe"
)

type eagerFact struct {
	FK *int64
	X  *int64
	Y  *float64
	S  *string
}

type eagerDim struct {
	DK   *int64
	Name *string
	DNK  int64 `dusk:"d_nk"`
}

type eagerNation struct {
	NK    int64 `dusk:"nk"`
	NName string
}

// TestEagerAggregation groups a fact table joined to two dimensions by the
// dimensions' columns, which the plan does by grouping the facts by their
// key before the join (eager aggregation): the answers are those of the
// rows joined and grouped one by one, with null keys meeting each other
// as Merge's do, dimension keys that repeat (no key is assumed unique),
// null values, computed aggregate inputs, and null keys dropped or kept.
// With a filtered dimension the plan groups after the join.
func TestEagerAggregation(t *testing.T) {
	ctx := newClient(t)
	r := rand.New(rand.NewPCG(21, 22))
	maybe := func(p int) bool { return r.IntN(100) < p }
	facts := make([]eagerFact, 600)
	for i := range facts {
		f := &facts[i]
		if !maybe(10) {
			f.FK = ptr(int64(r.IntN(30)))
		}
		if !maybe(15) {
			f.X = ptr(int64(r.IntN(100) - 50))
		}
		if !maybe(15) {
			f.Y = ptr(float64(r.IntN(1000)) / 8)
		}
		if !maybe(10) {
			f.S = ptr(string(rune('a' + r.IntN(26))))
		}
	}
	dims := make([]eagerDim, 40)
	for i := range dims {
		d := &dims[i]
		if !maybe(10) {
			d.DK = ptr(int64(r.IntN(35)))
		}
		if !maybe(20) {
			d.Name = ptr([]string{"p", "q", "r"}[r.IntN(3)])
		}
		d.DNK = int64(r.IntN(5))
	}
	nations := []eagerNation{{0, "n0"}, {1, "n1"}, {2, "n2"}, {3, "n3"}, {4, "n4"}}
	fact := dataframe.FromRecords(facts, 4)
	dim := dataframe.FromRecords(dims, 1)
	nation := dataframe.FromRecords(nations, 1)

	aggs := []dataframe.Agg{
		dataframe.Sum("X").As("sum_x"), dataframe.Sum("X").OrNull().As("sum_x_or_null"), dataframe.Count("Y").As("count_y"),
		dataframe.Size().As("size"), dataframe.Min("S").As("min_s"), dataframe.Max("Y").As("max_y"),
		dataframe.Col("X").Mul(2).Sum().As("sum_2x"),
	}
	// want is the answer of rows joined and grouped one by one.
	want := func(keepNulls bool, dimOK func(eagerDim) bool) []string {
		type acc struct {
			sumX, sum2X, count, size int64
			anyX, anyS, anyY         bool
			minS                     string
			maxY                     float64
		}
		groups := map[string]*acc{}
		for _, f := range facts {
			for _, d := range dims {
				if !dimOK(d) || (f.FK == nil) != (d.DK == nil) || f.FK != nil && *f.FK != *d.DK {
					continue
				}
				n := nations[d.DNK]
				if !keepNulls && (d.DK == nil || d.Name == nil) {
					continue
				}
				key := fmt.Sprintf("%s %s %s", str(d.DK), str(d.Name), n.NName)
				a := groups[key]
				if a == nil {
					a = &acc{}
					groups[key] = a
				}
				a.size++
				if f.X != nil {
					a.sumX += *f.X
					a.sum2X += 2 * *f.X
					a.anyX = true
				}
				if f.Y != nil {
					a.count++
					if !a.anyY || *f.Y > a.maxY {
						a.maxY = *f.Y
					}
					a.anyY = true
				}
				if f.S != nil && (!a.anyS || *f.S < a.minS) {
					a.minS, a.anyS = *f.S, true
				}
			}
		}
		var out []string
		for key, a := range groups {
			orNull, minS, maxY := "null", "null", "null"
			if a.anyX {
				orNull = fmt.Sprint(a.sumX)
			}
			if a.anyS {
				minS = a.minS
			}
			if a.anyY {
				maxY = fmt.Sprint(a.maxY)
			}
			out = append(out, fmt.Sprintf("%s %d %s %d %d %s %s %d", key, a.sumX, orNull, a.count, a.size, minS, maxY, a.sum2X))
		}
		return out
	}
	all := func(eagerDim) bool { return true }
	for _, c := range []struct {
		name      string
		keepNulls bool
		filtered  bool
	}{{"nulls-dropped", false, false}, {"nulls-kept", true, false}, {"filtered-dimension", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			d, ok := dim, all
			if c.filtered {
				d = dim.Filter(dataframe.Col("d_nk").Ne(3))
				ok = func(d eagerDim) bool { return d.DNK != 3 }
			}
			joined := fact.Merge(d, dataframe.MergeOptions{LeftOn: []string{"FK"}, RightOn: []string{"DK"}}).
				Merge(nation, dataframe.MergeOptions{LeftOn: []string{"d_nk"}, RightOn: []string{"nk"}})
			g := joined.GroupBy("DK", "Name", "NName")
			if c.keepNulls {
				g = g.KeepNullKeys()
			}
			f := g.Agg(aggs...)
			if eager := strings.Contains(f.Explain(), "__eager_"); eager == c.filtered {
				t.Fatalf("grouped before the join: %v, want %v:\n%s", eager, !c.filtered, f.Explain())
			}
			tb := compute(t, ctx, f)
			defer tb.Release()
			sameRows(t, tb, want(c.keepNulls, ok))
		})
	}
}

// str prints a value, nil as null.
func str[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

package bench

import (
	"fmt"

	"github.com/duskdata/dusk/dataframe"
)

// GroupByQuery builds db-benchmark's groupby question id ("q1".."q10") over
// x, a frame of the groupby table, with the reference answers' columns.
// Each is written as a user would, leaving Dusk to choose how to combine
// its groups, few or many.
func GroupByQuery(id string, x *dataframe.Frame) (*dataframe.Frame, error) {
	g := func(keys ...string) *dataframe.Grouped { return x.GroupBy(keys...) }
	D := struct {
		Sum, Mean, Max, Min, Std, Median func(string) dataframe.Agg
	}{dataframe.Sum, dataframe.Mean, dataframe.Max, dataframe.Min, dataframe.Std, dataframe.Median}
	var f *dataframe.Frame
	switch id {
	case "q1":
		f = g("id1").Agg(D.Sum("v1").As("v1"))
	case "q2":
		f = g("id1", "id2").Agg(D.Sum("v1").As("v1"))
	case "q3":
		f = g("id3").Agg(D.Sum("v1").As("v1"), D.Mean("v3").As("v3"))
	case "q4":
		f = g("id4").Agg(D.Mean("v1").As("v1"), D.Mean("v2").As("v2"), D.Mean("v3").As("v3"))
	case "q5":
		f = g("id6").Agg(D.Sum("v1").As("v1"), D.Sum("v2").As("v2"), D.Sum("v3").As("v3"))
	case "q6":
		f = g("id4", "id5").Agg(D.Median("v3").As("median_v3"), D.Std("v3").As("sd_v3"))
	case "q7":
		f = g("id3").Agg(D.Max("v1").As("max_v1"), D.Min("v2").As("min_v2")).
			WithColumn("range_v1_v2", dataframe.Col("max_v1").Sub(dataframe.Col("min_v2"))).
			Select("id3", "range_v1_v2")
	case "q8":
		f = x.Select("id6", "v3").GroupBy("id6").NLargest(2, "v3")
	case "q9":
		f = g("id2", "id4").Agg(dataframe.Corr("v1", "v2").As("r")).
			WithColumn("r2", dataframe.Col("r").Mul(dataframe.Col("r"))).
			Select("id2", "id4", "r2")
	case "q10":
		f = g("id1", "id2", "id3", "id4", "id5", "id6").Agg(D.Sum("v3").As("v3"), dataframe.Size().As("count"))
	default:
		return nil, fmt.Errorf("no groupby question %q", id)
	}
	return f, f.Err()
}

// JoinQuery builds db-benchmark's join question id ("j1".."j5") of x with
// the small, medium and big tables; "j3" ("medium outer") is a left join,
// as db-benchmark's.
func JoinQuery(id string, x, small, medium, big *dataframe.Frame) (*dataframe.Frame, error) {
	var f *dataframe.Frame
	switch id {
	case "j1":
		f = x.Join(small, "inner", "id1")
	case "j2":
		f = x.Join(medium, "inner", "id2")
	case "j3":
		f = x.Join(medium, "left", "id2")
	case "j4":
		f = x.Join(medium, "inner", "id5")
	case "j5":
		f = x.Join(big, "inner", "id3")
	default:
		return nil, fmt.Errorf("no join question %q", id)
	}
	return f, f.Err()
}

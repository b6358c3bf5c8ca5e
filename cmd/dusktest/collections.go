package main

import (
	"github.com/duskdata/dusk/array"
	"github.com/duskdata/dusk/bag"
	"github.com/duskdata/dusk/bench"
)

// The bag functions TestCollectionsAcrossProcesses (cmd/daemon)
// registers for its client: the same names, types and bodies. Importing
// array registers its operations.
var (
	_ = bag.Register("test-many-clicks", func(r map[string]any) bool {
		n, _ := r["num_clicks"].(float64)
		return n > 2
	})
	_ = bag.Register("test-click-area", func(r map[string]any) string {
		s, _ := r["area"].(string)
		return s
	})
	_ = bag.Register("test-row-big-v1", func(r bench.GroupByRow) bool { return r.V1 > 2 })
	_ = bag.Register("test-row-v3", func(r bench.GroupByRow) float64 { return r.V3 })
	_ = bag.RegisterFold("test-v1-by-id1",
		func(r bench.GroupByRow) string { return r.ID1 },
		func(acc int64, r bench.GroupByRow) int64 { return acc + r.V1 },
		func(a, b int64) int64 { return a + b })

	_ = array.Float64
)

// The element types the test's bags have: workers in this binary never
// build those bags themselves, so their typed operations are registered here.
func init() {
	bag.RegisterType[map[string]any]()
	bag.RegisterComparable[any]() // Frequencies of a Pluck
	bag.RegisterType[bench.GroupByRow]()
	bag.RegisterType[float64]()
}

package agg

import (
	"fmt"

	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// applyGroups calls a's function on each group's rows, in group order.
func applyGroups(tc *registry.Context, a *GroupArgs, rec arrow.Record, ids []int32, n int) (arrow.Record, error) {
	// Rows of each group, in order: a counting sort by id.
	start := make([]int32, n+1)
	for _, g := range ids {
		if g >= 0 {
			start[g+1]++
		}
	}
	for g := 1; g <= n; g++ {
		start[g] += start[g-1]
	}
	rows := make([]int32, start[n])
	pos := append([]int32(nil), start[:n]...)
	for i, g := range ids {
		if g >= 0 {
			rows[pos[g]] = int32(i)
			pos[g]++
		}
	}
	out := ops.SchemaOf(a.Out)
	var results []arrow.Record
	defer func() {
		for _, r := range results {
			r.Release()
		}
	}()
	for g := range n {
		grp := kernel.TakeRecord(rec, rows[start[g]:start[g+1]])
		res, err := ops.CallFunc(a.Func, out, grp, fmt.Sprintf("a group of partition %s", tc.Part()))
		grp.Release()
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return kernel.ConcatRecords(out, results)
}

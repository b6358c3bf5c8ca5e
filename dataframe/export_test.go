package dataframe

import (
	"github.com/duskdata/dusk/dataframe/internal/plan"
)

// SetManyGroupsBytes sets the size of partial results above which an
// aggregation combines them by a shuffle, and returns a function that
// restores it.
func SetManyGroupsBytes(n int64) (restore func()) {
	old := plan.ManyGroupsBytes
	plan.ManyGroupsBytes = n
	return func() { plan.ManyGroupsBytes = old }
}

// SetMinRangeJoin sets the least right side joined by key ranges, and
// returns a function that restores it.
func SetMinRangeJoin(n int64) (restore func()) {
	old := plan.MinRangeJoin
	plan.MinRangeJoin = n
	return func() { plan.MinRangeJoin = old }
}

package dataframe

// SetManyGroupsBytes sets the size of partial results above which an
// aggregation combines them by a shuffle, and returns a function that
// restores it.
func SetManyGroupsBytes(n int64) (restore func()) {
	old := manyGroupsBytes
	manyGroupsBytes = n
	return func() { manyGroupsBytes = old }
}

// SetMinRangeJoin sets the least right side joined by key ranges, and
// returns a function that restores it.
func SetMinRangeJoin(n int64) (restore func()) {
	old := minRangeJoin
	minRangeJoin = n
	return func() { minRangeJoin = old }
}

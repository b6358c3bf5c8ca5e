package dataframe

// SetManyGroupsBytes sets the size of partial results above which an
// aggregation combines them by a shuffle, and returns a function that
// restores it.
func SetManyGroupsBytes(n int64) (restore func()) {
	old := manyGroupsBytes
	manyGroupsBytes = n
	return func() { manyGroupsBytes = old }
}

package dataframe

import "sort"

// FunctionNames lists every operation of the expression table, for the test
// that each has a reference check.
func FunctionNames() []string {
	names := make([]string, 0, len(functions))
	for name := range functions {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// SetManyGroupsBytes sets the size of partial results above which an
// aggregation combines them by a shuffle, and returns a function that
// restores it.
func SetManyGroupsBytes(n int64) (restore func()) {
	old := manyGroupsBytes
	manyGroupsBytes = n
	return func() { manyGroupsBytes = old }
}

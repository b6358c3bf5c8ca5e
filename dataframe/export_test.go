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

package bench

import (
	"cmp"
	"slices"
)

// JoinQuestions are db-benchmark's five join questions ("medium outer" is
// a left join). An answer's columns are X's, then the other table's but
// the key, as pandas merge names them: the key once, other names found on
// both sides suffixed "_x" (X's) and "_y" (the other's).
var JoinQuestions = []Question[*JoinTables]{
	{"j1", "small inner on int", func(t *JoinTables) Answer { return refJoin(&t.X, &t.Small, "id1", false) }},
	{"j2", "medium inner on int", func(t *JoinTables) Answer { return refJoin(&t.X, &t.Medium, "id2", false) }},
	{"j3", "medium outer on int", func(t *JoinTables) Answer { return refJoin(&t.X, &t.Medium, "id2", true) }},
	{"j4", "medium inner on factor", func(t *JoinTables) Answer { return refJoin(&t.X, &t.Medium, "id5", false) }},
	{"j5", "big inner on int", func(t *JoinTables) Answer { return refJoin(&t.X, &t.Big, "id3", false) }},
}

// refJoin joins x and y on the column named key, keeping x's rows without
// a match (their y columns null) when left is set. Both must have the key.
func refJoin(x, y *JoinTable, key string, left bool) Answer {
	xc, yc := x.columns(), y.columns()
	has := func(cols []column, name string) bool {
		for _, c := range cols {
			if c.name == name {
				return true
			}
		}
		return false
	}
	var a Answer
	var xk, yk column
	for _, c := range xc {
		name := c.name
		if c.name == key {
			xk = c
		} else if has(yc, c.name) {
			name += "_x"
		}
		a.Columns = append(a.Columns, name)
	}
	var yrest []column
	for _, c := range yc {
		if c.name == key {
			yk = c
			continue
		}
		name := c.name
		if has(xc, c.name) {
			name += "_y"
		}
		a.Columns = append(a.Columns, name)
		yrest = append(yrest, c)
	}

	if xk.name == "" || yk.name == "" {
		panic("bench: join key " + key + " is missing from a table")
	}
	matches := map[any][]int{}
	for j := range yk.len() {
		k := yk.value(j)
		matches[k] = append(matches[k], j)
	}
	var pairs [][2]int // rows of x and y; y -1 for none
	for i := range xk.len() {
		ms := matches[xk.value(i)]
		if len(ms) == 0 && left {
			pairs = append(pairs, [2]int{i, -1})
		}
		for _, j := range ms {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	slices.SortFunc(pairs, func(p, q [2]int) int {
		if c := compareAt(xc, p[0], q[0]); c != 0 {
			return c
		}
		if p[1] < 0 || q[1] < 0 {
			return cmp.Compare(p[1], q[1])
		}
		return compareAt(yrest, p[1], q[1])
	})
	a.Rows = make([][]any, len(pairs))
	for r, p := range pairs {
		row := make([]any, 0, len(a.Columns))
		for _, c := range xc {
			row = append(row, c.value(p[0]))
		}
		for _, c := range yrest {
			if p[1] < 0 {
				row = append(row, nil)
			} else {
				row = append(row, c.value(p[1]))
			}
		}
		a.Rows[r] = row
	}
	return a
}

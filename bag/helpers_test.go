package bag_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/duskdata/dusk/bag"
	"github.com/duskdata/dusk/collections/testcluster"
)

// newClient starts a local cluster of two workers for t (testcluster.Local).
func newClient(t testing.TB) context.Context { return testcluster.Local(t) }

// layout is one way to cut items into partitions.
type layout struct {
	name string
	cut  func(n int) [][2]int // [lo, hi) ranges
}

var layouts = []layout{
	{"one", func(n int) [][2]int { return [][2]int{{0, n}} }},
	{"three", func(n int) [][2]int { return even(n, 3) }},
	{"nine", func(n int) [][2]int { return even(n, 9) }},
	{"empty-parts", func(n int) [][2]int { // empty partitions around, a one-item one
		h := min(1, n)
		return [][2]int{{0, 0}, {0, h}, {h, h}, {h, n / 2}, {n / 2, n / 2}, {n / 2, n}, {n, n}}
	}},
}

func even(n, k int) [][2]int {
	out := make([][2]int, k)
	for i := range out {
		out[i] = [2]int{i * n / k, (i + 1) * n / k}
	}
	return out
}

// shapes runs f over every layout of items, and of no items, with a bag of
// no partitions among them.
func shapes[T any](t *testing.T, items []T, f func(t *testing.T, b *bag.Bag[T], items []T)) {
	for _, data := range [][]T{items, nil} {
		for _, l := range layouts {
			var parts [][]T
			for _, r := range l.cut(len(data)) {
				parts = append(parts, data[r[0]:r[1]])
			}
			t.Run(fmt.Sprintf("%s/n=%d", l.name, len(data)), func(t *testing.T) { f(t, bag.FromPartitions(parts), data) })
		}
	}
	t.Run("no-partitions", func(t *testing.T) { f(t, bag.FromPartitions[T](nil), nil) })
}

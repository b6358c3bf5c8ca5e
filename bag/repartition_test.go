package bag_test

import (
	"fmt"
	"testing"

	"github.com/duskdata/dusk/bag"
)

// refRepartition is the plain reference: n >= len(parts) cuts partition i
// into k_i nearly equal slices, the k_i spreading n as evenly as they can;
// fewer concatenates runs of neighbours.
func refRepartition(parts [][]int, n int) [][]int {
	have := len(parts)
	var out [][]int
	if n <= have {
		for j := 0; j < n; j++ {
			var o []int
			for i := j * have / n; i < (j+1)*have/n; i++ {
				o = append(o, parts[i]...)
			}
			out = append(out, o)
		}
		return out
	}
	for i, p := range parts {
		k := (i+1)*n/have - i*n/have
		for s := 0; s < k; s++ {
			out = append(out, p[s*len(p)/k:(s+1)*len(p)/k])
		}
	}
	for len(out) < n {
		out = append(out, nil)
	}
	return out
}

func TestRepartition(t *testing.T) {
	ctx := newClient(t)
	shapes(t, testInts(), func(t *testing.T, b *bag.Bag[int], items []int) {
		parts, err := b.ComputePartitions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 3, 7, 9, 20} {
			r := bag.Repartition(b, n)
			if r.NPartitions() != n {
				t.Fatalf("repartition into %d: %d partitions", n, r.NPartitions())
			}
			got, err := r.ComputePartitions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := refRepartition(parts, n)
			for j := range want {
				equal(t, fmt.Sprintf("into %d, partition %d", n, j), got[j], want[j])
			}
			// Downstream operations see the new partitions.
			doubled, err := bag.Map(r, double).Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			equal(t, fmt.Sprintf("into %d, then map", n), doubled, bag.MustMap(items, func(x int) int { return 2 * x }))
		}
	})
}

func TestRepartitionTwice(t *testing.T) {
	ctx := newClient(t)
	items := testInts()
	b := bag.Repartition(bag.Repartition(bag.FromSequence(items, 5), 13), 4)
	got, err := b.Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "5 -> 13 -> 4", got, items)
}

func TestRepartitionErrors(t *testing.T) {
	if err := bag.Repartition(bag.FromSequence([]int{1}, 1), 0).Err(); err == nil {
		t.Fatal("Repartition(0): no error")
	}
	if r := bag.Repartition(bag.Repartition(bag.FromSequence([]int{1}, 1), -1), 3); r.Err() == nil {
		t.Fatal("Repartition of a failed bag: no error")
	}
}

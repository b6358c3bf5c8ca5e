package prioq

import (
	"math/rand"
	"sort"
	"testing"

	"github.com/duskdata/dusk/internal/protocol"
)

// The queue pops in priority order, ties in push order, against a sort.
func TestPopsInOrder(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 17, 1000} {
		var q Queue[int]
		type item struct {
			p   protocol.Priority
			seq int
		}
		var want []item
		for i := 0; i < n; i++ {
			p := protocol.Priority{Gen: int64(r.Intn(3)), Ord: int64(r.Intn(50))}
			q.Push(i, p)
			want = append(want, item{p, i})
		}
		sort.SliceStable(want, func(i, j int) bool { return want[i].p.Less(want[j].p) })
		for i, w := range want {
			got, _, ok := q.Pop()
			if !ok || got != w.seq {
				t.Fatalf("n=%d pop %d: got %d, want %d", n, i, got, w.seq)
			}
		}
		if _, _, ok := q.Pop(); ok || q.Len() != 0 {
			t.Fatalf("n=%d: queue not empty after popping all", n)
		}
	}
}

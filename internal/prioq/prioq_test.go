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
			// Mostly in order, as tasks arrive, with some out of order.
			p := protocol.Priority{Gen: int64(i / 100), Ord: int64(i)}
			if r.Intn(4) == 0 {
				p = protocol.Priority{Gen: int64(r.Intn(3)), Ord: int64(r.Intn(50))}
			}
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

// Pops between pushes keep the order too.
func TestInterleaved(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var q Queue[int]
	ref := map[int]protocol.Priority{}
	next := 0
	for step := 0; step < 20000; step++ {
		if r.Intn(3) > 0 {
			p := protocol.Priority{Ord: int64(next + r.Intn(20) - 10)}
			q.Push(next, p)
			ref[next] = p
			next++
			continue
		}
		got, _, ok := q.Pop()
		if !ok {
			continue
		}
		for id, p := range ref {
			if p.Less(ref[got]) {
				t.Fatalf("popped %d (%v) while %d (%v) was queued", got, ref[got], id, p)
			}
		}
		delete(ref, got)
	}
}

package scheduler

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/duskdata/dusk/graph"
)

// The index against a plain map, with a hash so coarse that most keys
// clash: every get, put and delete agrees.
func TestTaskIndexClashes(t *testing.T) {
	for _, buckets := range []uint64{1, 3, 1 << 62} {
		x := newTaskIndex()
		x.hash = func(k graph.Key) uint64 {
			n, _ := strconv.Atoi(string(k[1:]))
			return uint64(n) % buckets
		}
		want := map[graph.Key]*task{}
		rng := rand.New(rand.NewPCG(buckets, 7))
		for range 5000 {
			k := graph.Key("k" + strconv.Itoa(rng.IntN(40)))
			switch have := want[k]; {
			case have == nil && rng.IntN(2) == 0:
				tk := &task{spec: keySpec(k)}
				x.put(tk)
				want[k] = tk
			case have != nil && rng.IntN(2) == 0:
				x.delete(have)
				delete(want, k)
			}
			if got := x.get(k); got != want[k] {
				t.Fatalf("%d buckets: %s is %p, want %p", buckets, k, got, want[k])
			}
			if x.len() != len(want) {
				t.Fatalf("%d buckets: %d tasks, want %d", buckets, x.len(), len(want))
			}
		}
		n := 0
		for tk := range x.all() {
			if want[tk.key()] != tk {
				t.Fatalf("%d buckets: %s yielded but not filed", buckets, tk.key())
			}
			n++
		}
		if n != len(want) {
			t.Fatalf("%d buckets: %d yielded, want %d", buckets, n, len(want))
		}
	}
}

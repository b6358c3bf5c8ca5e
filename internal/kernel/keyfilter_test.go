package kernel

import (
	"math/rand"
	"testing"
)

// A filter holds every key added and lets few others through: about one
// in 70 at 16 bits a key, for two bits of one word, and one in 20 at the
// 8 bits a key of siftRows keys.
func TestKeyFilter(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, c := range []struct {
		n       int
		maxRate float64
	}{{1, 0.03}, {100, 0.03}, {5000, 0.03}, {131072, 0.03}, {siftRows, 0.07}} {
		n := c.n
		var f keyFilter
		f.reset(n)
		in := map[int64]bool{}
		for len(in) < n {
			k := rng.Int63() - rng.Int63()
			in[k] = true
			f.add(k)
		}
		for k := range in {
			if !f.mayHold(k) {
				t.Fatalf("%d keys: %d added, not held", n, k)
			}
		}
		passed, tries := 0, 200000
		for range tries {
			if k := rng.Int63(); !in[k] && f.mayHold(k) {
				passed++
			}
		}
		if rate := float64(passed) / float64(tries); rate > c.maxRate {
			t.Errorf("%d keys: %.2f%% of other keys pass, want at most %.0f%%", n, 100*rate, 100*c.maxRate)
		}
	}
	// Keys in a run (TPC-H's order keys) spread over the words alike.
	var f keyFilter
	f.reset(60000)
	for k := range int64(60000) {
		f.add(4 * k)
	}
	passed := 0
	for k := range int64(200000) {
		if f.mayHold(4*k + 1) {
			passed++
		}
	}
	if passed > 6000 {
		t.Errorf("keys in a run: %d of 200000 others pass", passed)
	}
}

package sim

import (
	"errors"
	"flag"
	"testing"
)

var seeds = flag.Int("sim.seeds", 300, "how many seeds TestSimulation runs")

// TestSimulation runs seeds with and without faults, a third of them with
// a worker behind a slow link, half of them submitting the graph twice; a
// failing seed is printed with the events
// that led to it, and replays with TestSeed.
func TestSimulation(t *testing.T) {
	var events, lost int
	for seed := uint64(1); seed <= uint64(*seeds); seed++ {
		st, err := Run(seed, Options{Faults: seed%4 != 0, Slow: seed%3 == 0, Twice: seed%2 == 0})
		if err != nil {
			var f *Failure
			if errors.As(err, &f) {
				t.Fatal(f)
			}
			t.Fatalf("seed %d: %v", seed, err)
		}
		events += st.Events
		lost += st.Lost
	}
	t.Logf("%d seeds: %d events, %d workers lost", *seeds, events, lost)
}

// TestDeterministic: a seed replays exactly.
func TestDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		a, errA := Run(seed, Options{Faults: true})
		b, errB := Run(seed, Options{Faults: true})
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("seed %d ran twice differently: %+v (%v) and %+v (%v)", seed, a, errA, b, errB)
		}
	}
}

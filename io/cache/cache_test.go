package cache

import (
	"testing"

	"github.com/duskdata/dusk/graph"
)

// TestPerDatum checks which tasks belong to one datum: those whose inputs
// all trace to the same read, through no shuffle, write or combine.
func TestPerDatum(t *testing.T) {
	g := graph.New()
	add := func(k, op string, combine bool, inputs ...graph.Key) {
		g.Add(&graph.Task{Key: graph.Key(k), Op: op, Inputs: inputs, Combine: combine})
	}
	add("read-a", "read", false)
	add("read-b", "read", false)
	add("map-a", "map", false, "read-a")
	add("map-b", "map", false, "read-b")
	add("both-a", "assign", false, "read-a", "map-a") // two inputs, one datum
	add("join-ab", "join", false, "map-a", "map-b")   // two datums
	add("after-join", "map", false, "join-ab")        // downstream of two
	add("combine-b", "combine", true, "map-b")        // a tree's lone last group
	add("shuffled", "split", false, "map-a")
	g.Task("shuffled").Shuffle = &graph.Shuffle{ID: "s", Role: graph.Transfer}
	_, perDatum := analyse(g)
	for k, want := range map[string]bool{
		"read-a": true, "read-b": true, "map-a": true, "map-b": true, "both-a": true,
		"join-ab": false, "after-join": false, "combine-b": false, "shuffled": false,
	} {
		if perDatum[graph.Key(k)] != want {
			t.Errorf("%s: per-datum %v, want %v", k, perDatum[graph.Key(k)], want)
		}
	}
}

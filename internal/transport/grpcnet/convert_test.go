package grpcnet

import (
	"reflect"
	"testing"

	"github.com/duskdata/dusk/graph"
)

// TestTaskWireRoundTrip checks that a task comes off the wire as it went
// on, its shuffle's parts included.
func TestTaskWireRoundTrip(t *testing.T) {
	tasks := []*graph.Task{
		{Key: "a-0", Op: "op", Args: []byte("{}"), Inputs: []graph.Key{"b-0"}},
		{Key: "t-3", Op: "split", Inputs: []graph.Key{"p-3"}, Shuffle: &graph.Shuffle{ID: "s", Role: graph.Transfer,
			Outputs: 4, Side: 1, Source: 3, Merge: "combine", MergeArgs: []byte(`{"keys":["k"]}`)}},
		{Key: "u-2", Op: "unpack", Inputs: []graph.Key{"b"}, Shuffle: &graph.Shuffle{ID: "s", Role: graph.Unpack,
			Outputs: 4, Part: 2, Sources: []int{5, 7}}},
	}
	for _, want := range tasks {
		if got := taskFromWire(taskToWire(want)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s came back as %+v (shuffle %+v)", want.Key, got, got.Shuffle)
		}
	}
}

package bag_test

import (
	"reflect"
	"testing"

	"github.com/duskdata/dusk/bag"
	"github.com/duskdata/dusk/internal/codec/codectest"
)

// TestCodecs checks that partitions and partial results cross processes.
func TestCodecs(t *testing.T) {
	_ = bag.Frequencies(bag.FromSequence([]string{"a"}, 1)) // registers its codecs
	c := Click{ID: 3, Area: "x", NumClicks: 4}
	for _, v := range []any{
		[]int{1, 2, 3},
		[]string{"a", "", "c"},
		[]Click{c},
		[]bag.Pair[string, int64]{{Key: "a", Value: 2}},
		[]map[string]any{{"id": 1.0, "area": "x", "info": map[string]any{"a_field": "y"}}},
		[]any{"a", 1.5, nil},
	} {
		if got := codectest.RoundTrip(t, v); !reflect.DeepEqual(got, v) {
			t.Errorf("%T: got %#v, want %#v", v, got, v)
		}
	}
}

package bag_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/duskdata/dusk/bag"
	"github.com/duskdata/dusk/internal/codec"
)

// roundTrip encodes v with its registered codec and decodes it.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	c, err := codec.For(v)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.Encode(&buf, v); err != nil {
		t.Fatalf("%s encode: %v", c.Name(), err)
	}
	named, err := codec.Named(c.Name())
	if err != nil {
		t.Fatal(err)
	}
	got, err := named.Decode(&buf)
	if err != nil {
		t.Fatalf("%s decode: %v", c.Name(), err)
	}
	return got
}

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
		if got := roundTrip(t, v); !reflect.DeepEqual(got, v) {
			t.Errorf("%T: got %#v, want %#v", v, got, v)
		}
	}
}

// Package codectest holds the test helper that sends a value through its
// codec as a transfer or a spill does.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, a transport, or the
// collections.
package codectest

import (
	"bytes"
	"testing"

	"github.com/duskdata/dusk/internal/codec"
)

// RoundTrip encodes v with its registered codec and decodes it with the
// codec looked up by name, as the receiving process does.
func RoundTrip(t testing.TB, v any) any {
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

package store

import (
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/internal/registry"
)

func TestStoreCountsBytes(t *testing.T) {
	s := New(Config{})
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues(make([]int64, 1000), nil)
	col := b.NewArray()
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 1000)
	col.Release()

	if n := s.Put("rec", rec); n < 8000 {
		t.Fatalf("record of 1000 int64 counted as %d bytes", n)
	}
	s.Put("bytes", make([]byte, 100))
	s.Put("ints", make([]int64, 10))
	want := SizeOf(rec) + 100 + SizeOf(make([]int64, 10))
	if got := s.Managed(); got != want {
		t.Fatalf("Managed = %d, want %d", got, want)
	}
	v, ok, err := s.Get("rec")
	if !ok || err != nil {
		t.Fatal("rec missing")
	}
	s.Delete("rec")
	// The reference Get handed out keeps the data alive after the store lets go.
	if got := v.(arrow.Record).Column(0).(*array.Int64).Len(); got != 1000 {
		t.Fatalf("record after Delete has %d rows", got)
	}
	registry.Release(v)
	if got := s.Managed(); got != 100+SizeOf(make([]int64, 10)) || s.Len() != 2 {
		t.Fatalf("after Delete: %d bytes, %d values", got, s.Len())
	}
}

func TestSizeOf(t *testing.T) {
	type row struct {
		ID   int64
		Name string
	}
	tests := []struct {
		name string
		v    any
		want int64
	}{
		{"nil", nil, 0},
		{"int", 7, 8},
		{"string", "hello", 5},
		{"float slice", make([]float64, 100), 24 + 800},
		{"structs", []row{{1, "ab"}, {2, "cde"}}, 24 + 2*24 + 5},
		{"map", map[string]int{"a": 1}, 8 + (16 + 8) + 1},
	}
	for _, tt := range tests {
		if got := SizeOf(tt.v); got != tt.want {
			t.Errorf("%s: SizeOf = %d, want %d", tt.name, got, tt.want)
		}
	}
}

package array_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/array"
)

var square = dusk.Register("array-test-square", func(_ context.Context, x int) (int, error) {
	if x < 0 {
		return 0, fmt.Errorf("negative input %d", x)
	}
	return x * x, nil
})

func TestParallelMap(t *testing.T) {
	ctx := newClient(t)
	items := []int{3, 1, 4, 1, 5, 9, 2, 6}
	out, err := array.ParallelMap[int, int](ctx, square, items)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range items {
		if out[i] != v*v {
			t.Fatalf("item %d: %d, want %d", i, out[i], v*v)
		}
	}
	if _, err := array.ParallelMap[int, int](ctx, square, []int{2, -1}); err == nil || !strings.Contains(err.Error(), "negative input -1") {
		t.Fatalf("error from a failing item: %v", err)
	}
}

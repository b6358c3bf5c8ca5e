package array_test

import (
	"context"
	"fmt"
	"log"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/array"
)

// A chunked array, as Dask's: each chunk is made, reduced and dropped in one
// task, so arrays larger than memory sum in constant memory; a slice of a
// generated array makes only its own elements.
func ExampleArange() {
	ctx := context.Background()
	client, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx = dusk.WithClient(ctx, client)

	x := array.Arange(1_000_000, 100_000)
	sum, err := x.Sum().Compute(ctx)
	fmt.Println(sum.Float(0), err)
	part, err := x.Slice([]int{10}, []int{15}).Compute(ctx)
	fmt.Println(part.I, err)
	// Output:
	// 4.999995e+11 <nil>
	// [10 11 12 13 14] <nil>
}

package dusk_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/duskdata/dusk"
)

// Functions run on the cluster are registered by name at package level, so
// that every worker binary has them.
var (
	square = dusk.Register("example-square", func(_ context.Context, x int) (int, error) { return x * x, nil })
	total  = dusk.Register("example-total", func(_ context.Context, xs exampleTerms) (int, error) {
		sum := 0
		for _, x := range xs.Terms {
			sum += x.Value()
		}
		return sum, nil
	})
	shout = dusk.Register("example-shout", func(_ context.Context, s string) (string, error) { return strings.ToUpper(s), nil },
		dusk.Needs{Memory: 1 << 20}) // each task holds 1 MiB of its worker's memory while it runs
)

// exampleTerms is an argument made of other tasks' results.
type exampleTerms struct{ Terms []dusk.Ref[int] }

// A client with no address starts a local cluster in this process; the
// same code runs on a cluster of many machines given dusk.Address.
func ExampleNewClient() {
	ctx := context.Background()
	client, err := dusk.NewClient(ctx, dusk.Workers(2), dusk.ThreadsPerWorker(1))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	workers, err := client.Workers(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(workers), "workers")
	// Output: 2 workers
}

// Futures: Map runs a registered function on each argument, results stay
// on the workers until gathered, and futures are arguments of later tasks
// (as a Ref in a struct) without passing through the client.
func ExampleFunc_Map() {
	ctx := context.Background()
	client, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx = dusk.WithClient(ctx, client)

	squares, err := square.Map(ctx, []int{1, 2, 3, 4})
	if err != nil {
		log.Fatal(err)
	}
	var terms exampleTerms
	for _, f := range squares {
		terms.Terms = append(terms.Terms, f.Ref())
	}
	sum, err := total.Submit(ctx, terms)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum.Result(ctx))
	got, err := dusk.Gather(ctx, squares)
	fmt.Println(got, err)
	// Output:
	// 30 <nil>
	// [1 4 9 16] <nil>
}

// AsCompleted yields futures as they finish; Wait waits for one or all.
func ExampleAsCompleted() {
	ctx := context.Background()
	client, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx = dusk.WithClient(ctx, client)

	futs, err := shout.Map(ctx, []string{"a", "b", "c"})
	if err != nil {
		log.Fatal(err)
	}
	n := 0
	for f, err := range dusk.AsCompleted(ctx, futs) {
		if err != nil {
			log.Fatal(err)
		}
		if _, err := f.Result(ctx); err == nil {
			n++
		}
	}
	fmt.Println(n, "done")
	// Output: 3 done
}

// Named state shared by every client of a cluster: here a queue.
func ExampleQueue() {
	ctx := context.Background()
	client, err := dusk.NewClient(ctx, dusk.Workers(1))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	q := dusk.NewQueue[string](client, "jobs")
	for _, job := range []string{"load", "train"} {
		if err := q.Put(ctx, job); err != nil {
			log.Fatal(err)
		}
	}
	first, _ := q.Get(ctx)
	n, _ := q.Len(ctx)
	fmt.Println(first, n)
	// Output: load 1
}

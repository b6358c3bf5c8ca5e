package bag_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bag"
)

// Functions over items are registered by name, at package level.
var (
	words = bag.Register("example-upper", strings.ToUpper)
	long  = bag.Register("example-long", func(s string) bool { return len(s) > 3 })
)

// A bag of Go values: map, filter and count, as Dask's bag.
func ExampleMap() {
	ctx := context.Background()
	client, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx = dusk.WithClient(ctx, client)

	b := bag.FromSequence([]string{"dask", "go", "dusk", "arrow"}, 2)
	out, err := bag.Map(bag.Filter(b, long), words).Compute(ctx)
	fmt.Println(out, err)
	n, err := b.Count().Compute(ctx)
	fmt.Println(n, err)
	// Output:
	// [DASK DUSK ARROW] <nil>
	// 4 <nil>
}

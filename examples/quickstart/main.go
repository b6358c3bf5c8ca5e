// Quickstart writes a small clicks dataset (data/2014-01.csv … 2014-12.csv
// with columns id, area, num_clicks), reads it back with a glob, keeps the
// rows with more than two clicks, and counts and sums the clicks per area,
// all on a local cluster in this process.
//
// Must never import directly: scheduler, worker, or internal: an example uses
// the public API alone.
package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
)

func main() {
	dir := filepath.Join(os.TempDir(), "dusk-quickstart")
	if err := writeClicks(dir); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	client, err := dusk.NewClient(ctx) // a local cluster: one worker per core
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	start := time.Now()
	clicks := dataframe.ReadCSV(filepath.Join(dir, "2014-*.csv")) // lazy: only the header is read
	busy := clicks.Filter(dataframe.Col("num_clicks").Gt(2))
	out, err := busy.GroupBy("area").
		Agg(dataframe.Count("num_clicks"), dataframe.Sum("num_clicks")).
		Compute(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Release()
	fmt.Printf("%d files, %d partitions, computed in %v\n\n", 12, clicks.NumPartitions(), time.Since(start).Round(time.Millisecond))
	fmt.Print(out)
}

// writeClicks writes one CSV file per month of 2014.
func writeClicks(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	areas := []string{"north", "south", "east", "west", "center"}
	r := rand.New(rand.NewPCG(2014, 1))
	id := 0
	for month := 1; month <= 12; month++ {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("2014-%02d.csv", month)))
		if err != nil {
			return err
		}
		fmt.Fprintln(f, "id,area,num_clicks")
		for i := 0; i < 1000; i++ {
			id++
			fmt.Fprintf(f, "%d,%s,%d\n", id, areas[r.IntN(len(areas))], r.IntN(10))
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

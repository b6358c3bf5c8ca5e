// Command bagclicks runs the bag example Dask users know on generated click
// records {id, area, num_clicks, info{a_field}}: filter num_clicks > 2 and
// take 2; pluck the area and take 2; count.
//
// Must never import directly: scheduler, worker, or internal: an example uses
// the public API alone.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bag"
)

// manyClicks is registered by name, so that workers can run it (DESIGN §3).
var manyClicks = bag.Register("bagclicks-many-clicks", func(r map[string]any) bool {
	n, _ := r["num_clicks"].(float64)
	return n > 2
})

func main() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bagclicks")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := writeClicks(dir, 4, 250); err != nil {
		log.Fatal(err)
	}

	client, err := dusk.NewClient(ctx) // an in-process cluster
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	b := bag.ReadJSON[map[string]any](filepath.Join(dir, "*.json"))
	many, err := bag.Filter(b, manyClicks).Take(ctx, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("num_clicks > 2, first two:", many)
	areas, err := bag.Pluck(b, "area").Take(ctx, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("areas, first two:", areas)
	n, err := b.Count().Compute(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("count:", n)
}

// writeClicks writes files of perFile JSON lines into dir.
func writeClicks(dir string, files, perFile int) error {
	areas := []string{"north", "south", "east", "west"}
	for f := range files {
		var buf []byte
		for j := range perFile {
			i := f*perFile + j
			rec := map[string]any{"id": i, "area": areas[(i*7)%4], "num_clicks": (i * 5) % 6,
				"info": map[string]any{"a_field": fmt.Sprint("x", i%3)}}
			line, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			buf = append(append(buf, line...), '\n')
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", f)), buf, 0o644); err != nil {
			return err
		}
	}
	return nil
}

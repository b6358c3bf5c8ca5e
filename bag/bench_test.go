package bag_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/duskdata/dusk/bag"
)

// BenchmarkFrequencies counts the areas of JSON click records, read as
// map[string]any (Dask's json.loads) and as a struct. BAG_BENCH_RECORDS sets
// the number of records (10 million for the figure; 1 million by
// default); the figure is records/s.
func BenchmarkFrequencies(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("BAG_BENCH_RECORDS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	ctx := newClient(b)
	glob, _ := writeClicks(b, n, 8)
	st, _ := os.Stat(glob[:len(glob)-len("*.json")] + "0.json")
	b.Run("map", func(b *testing.B) {
		b.SetBytes(st.Size() * 8)
		for b.Loop() {
			if _, err := bag.Frequencies(bag.Pluck(bag.ReadJSON[map[string]any](glob), "area")).Compute(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("struct", func(b *testing.B) {
		b.SetBytes(st.Size() * 8)
		for b.Loop() {
			if _, err := bag.Frequencies(bag.Map(bag.ReadJSON[Click](glob), clickArea)).Compute(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
}

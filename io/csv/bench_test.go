package csv_test

import (
	"bytes"
	"testing"

	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/io/csv"
)

var groupBySchema = csv.Schema{
	{Name: "id1", Type: csv.String, Dictionary: true}, {Name: "id2", Type: csv.String, Dictionary: true},
	{Name: "id3", Type: csv.String}, {Name: "id4", Type: csv.Int64}, {Name: "id5", Type: csv.Int64},
	{Name: "id6", Type: csv.Int64}, {Name: "v1", Type: csv.Int64}, {Name: "v2", Type: csv.Int64},
	{Name: "v3", Type: csv.Float64},
}

// BenchmarkParseGroupBy parses db-benchmark's groupby layout on one core;
// MB/s is the parser's own speed, before any parallelism.
func BenchmarkParseGroupBy(b *testing.B) {
	var buf bytes.Buffer
	if err := bench.WriteGroupByCSV(&buf, 1_000_000, 100, 1); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()[len(bench.GroupByHeader)+1:]
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec, err := csv.Parse(data, groupBySchema, csv.Options{})
		if err != nil {
			b.Fatal(err)
		}
		rec.Release()
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "rows/s")
}

package csv_test

import (
	"bytes"
	"testing"

	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/io/csv"
)

var groupBySchema = csv.Schema{
	{"id1", csv.String}, {"id2", csv.String}, {"id3", csv.String},
	{"id4", csv.Int64}, {"id5", csv.Int64}, {"id6", csv.Int64},
	{"v1", csv.Int64}, {"v2", csv.Int64}, {"v3", csv.Float64},
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

package parquet

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/parquet-go/parquet-go"
)

// benchRows is the size of the db-benchmark groupby table the benchmarks
// use: DUSK_BENCH_ROWS, else 1,000,000.
func benchRows() int {
	if n, err := strconv.Atoi(os.Getenv("DUSK_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

var groupBy struct {
	once   sync.Once
	schema *arrow.Schema
	rec    arrow.Record
	file   []byte
}

// groupByTable makes db-benchmark's groupby table (K=100, no nulls) with
// id1, id2 as dictionary strings and id3 plain, as the CSV reader makes
// them, and writes it with Write.
func groupByTable(b *testing.B) (*arrow.Schema, arrow.Record, []byte) {
	groupBy.once.Do(func() {
		n, k := benchRows(), 100
		r := rand.New(rand.NewPCG(42, 0))
		small := make([]string, k)
		for i := range small {
			small[i] = fmt.Sprintf("id%03d", i+1)
		}
		dictOf := func() arrow.Array {
			offs := []int32{0}
			var data []byte
			for _, s := range small {
				data = append(data, s...)
				offs = append(offs, int32(len(data)))
			}
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(r.IntN(k))
			}
			d := kernel.NewString(offs, data, nil)
			defer d.Release()
			return kernel.NewDict(idx, d, nil)
		}
		id1, id2 := dictOf(), dictOf()
		offs := make([]int32, n+1)
		var data []byte
		for i := range n {
			data = fmt.Appendf(data, "id%010d", 1+r.IntN(n/k))
			offs[i+1] = int32(len(data))
		}
		id3 := kernel.NewString(offs, data, nil)
		ints := func(hi int) arrow.Array {
			v := make([]int64, n)
			for i := range v {
				v[i] = 1 + r.Int64N(int64(hi))
			}
			return kernel.NewInt64(v, nil)
		}
		id4, id5, id6, v1, v2 := ints(k), ints(k), ints(n/k), ints(5), ints(15)
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Round(r.Float64()*100*1e6) / 1e6
		}
		v3 := kernel.NewFloat64(v, nil)
		cols := []arrow.Array{id1, id2, id3, id4, id5, id6, v1, v2, v3}
		names := []string{"id1", "id2", "id3", "id4", "id5", "id6", "v1", "v2", "v3"}
		fields := make([]arrow.Field, len(cols))
		for i, c := range cols {
			fields[i] = arrow.Field{Name: names[i], Type: c.DataType(), Nullable: true}
		}
		groupBy.schema = arrow.NewSchema(fields, nil)
		groupBy.rec = array.NewRecord(groupBy.schema, cols, int64(n))
		var buf bytes.Buffer
		if err := Write(&buf, groupBy.schema, []arrow.Record{groupBy.rec}, WriteOptions{}); err != nil {
			panic(err)
		}
		groupBy.file = buf.Bytes()
	})
	return groupBy.schema, groupBy.rec, groupBy.file
}

func reportRows(b *testing.B, rows int) {
	b.ReportMetric(float64(b.N)*float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkRawPages is the reference: parquet-go reading every page of
// the file and every value through its own readers (ReadInt64s and the
// like where a page offers them, ReadValues otherwise).
func BenchmarkRawPages(b *testing.B) {
	_, _, file := groupByTable(b)
	b.SetBytes(int64(len(file)))
	ints := make([]int64, 4096)
	floats := make([]float64, 4096)
	values := make([]parquet.Value, 4096)
	b.ResetTimer()
	for range b.N {
		f, err := parquet.OpenFile(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			b.Fatal(err)
		}
		read := 0
		for _, rg := range f.RowGroups() {
			for _, chunk := range rg.ColumnChunks() {
				pages := chunk.Pages()
				for {
					p, err := pages.ReadPage()
					if err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
					vr := p.Values()
					for {
						var n int
						switch r := vr.(type) {
						case parquet.Int64Reader:
							n, err = r.ReadInt64s(ints)
						case parquet.DoubleReader:
							n, err = r.ReadDoubles(floats)
						default:
							n, err = vr.ReadValues(values)
						}
						read += n
						if err == io.EOF {
							break
						} else if err != nil {
							b.Fatal(err)
						}
					}
					parquet.Release(p)
				}
				pages.Close()
			}
		}
		if read != 9*benchRows() {
			b.Fatalf("read %d values", read)
		}
	}
	reportRows(b, benchRows())
}

// BenchmarkRawPageData is a stricter reference: parquet-go decoding every
// page (decompression, levels, values) with nothing read out of it.
func BenchmarkRawPageData(b *testing.B) {
	_, _, file := groupByTable(b)
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	for range b.N {
		f, err := parquet.OpenFile(bytes.NewReader(file), int64(len(file)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			b.Fatal(err)
		}
		read := 0
		for _, rg := range f.RowGroups() {
			for _, chunk := range rg.ColumnChunks() {
				pages := chunk.Pages()
				for {
					p, err := pages.ReadPage()
					if err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
					read += len(p.DefinitionLevels())
					p.Data()
					parquet.Release(p)
				}
				pages.Close()
			}
		}
		if read != 9*benchRows() {
			b.Fatalf("read %d values", read)
		}
	}
	reportRows(b, benchRows())
}

func benchRead(b *testing.B, cols []string) {
	_, _, file := groupByTable(b)
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	for range b.N {
		rec, err := Read(bytes.NewReader(file), int64(len(file)), "groupby.parquet", nil, cols)
		if err != nil {
			b.Fatal(err)
		}
		if rec.NumRows() != int64(benchRows()) {
			b.Fatalf("%d rows", rec.NumRows())
		}
		rec.Release()
	}
	reportRows(b, benchRows())
}

// BenchmarkRead reads the whole groupby table.
func BenchmarkRead(b *testing.B) { benchRead(b, nil) }

// BenchmarkReadTwoColumns reads id1 and v1 of the nine; MB/s counts the
// whole file.
func BenchmarkReadTwoColumns(b *testing.B) { benchRead(b, []string{"id1", "v1"}) }

// BenchmarkWrite writes the groupby table; MB/s counts the file written.
func BenchmarkWrite(b *testing.B) {
	schema, rec, file := groupByTable(b)
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	for range b.N {
		if err := Write(io.Discard, schema, []arrow.Record{rec}, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b, benchRows())
}

// groupByRow is the groupby table's row for parquet-go's GenericWriter.
type groupByRow struct {
	ID1 *string  `parquet:"id1,optional,dict"`
	ID2 *string  `parquet:"id2,optional,dict"`
	ID3 *string  `parquet:"id3,optional,dict"`
	ID4 *int64   `parquet:"id4,optional"`
	ID5 *int64   `parquet:"id5,optional"`
	ID6 *int64   `parquet:"id6,optional"`
	V1  *int64   `parquet:"v1,optional"`
	V2  *int64   `parquet:"v2,optional"`
	V3  *float64 `parquet:"v3,optional"`
}

// BenchmarkWriteGenericWriter is the reference for Write: parquet-go's own
// writer of Go structs (by reflection), to the same file layout.
func BenchmarkWriteGenericWriter(b *testing.B) {
	_, rec, file := groupByTable(b)
	rows := make([]groupByRow, rec.NumRows())
	strs := func(i int) []string {
		s := kernel.StringsOf(rec.Column(i))
		out := make([]string, len(rows))
		for r := range out {
			out[r] = s.Value(r)
		}
		return out
	}
	id1, id2, id3 := strs(0), strs(1), strs(2)
	ints := func(i int) []int64 { return rec.Column(i).(*array.Int64).Int64Values() }
	id4, id5, id6, v1, v2 := ints(3), ints(4), ints(5), ints(6), ints(7)
	v3 := rec.Column(8).(*array.Float64).Float64Values()
	for r := range rows {
		rows[r] = groupByRow{&id1[r], &id2[r], &id3[r], &id4[r], &id5[r], &id6[r], &v1[r], &v2[r], &v3[r]}
	}
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	for range b.N {
		w := parquet.NewGenericWriter[groupByRow](io.Discard, parquet.Compression(zstdCodec), parquet.DataPageStatistics(false))
		if _, err := w.Write(rows); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b, benchRows())
}

package avro_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/hamba/avro/v2/ocf"

	"github.com/duskdata/dusk/internal/kernel"
	davro "github.com/duskdata/dusk/io/avro"
)

// benchRecord makes n rows shaped like db-benchmark's groupby rows:
// id1 (string, 100 values), id4, v1 (int64), v3 (float64), flag (bool).
func benchRecord(n int) arrow.Record {
	r := rand.New(rand.NewPCG(1, 2))
	offs := make([]int32, 1, n+1)
	var data []byte
	id4, v1 := make([]int64, n), make([]int64, n)
	v3, flag := make([]float64, n), make([]uint8, n)
	for i := 0; i < n; i++ {
		data = fmt.Appendf(data, "id%03d", r.IntN(100)+1)
		offs = append(offs, int32(len(data)))
		id4[i], v1[i] = int64(r.IntN(100)+1), int64(r.IntN(5)+1)
		v3[i], flag[i] = float64(r.IntN(100_000_000))/1e6, uint8(r.IntN(2))
	}
	cols := []arrow.Array{kernel.NewString(offs, data, nil), kernel.NewInt64(id4, nil), kernel.NewInt64(v1, nil), kernel.NewFloat64(v3, nil), kernel.NewBool(flag, nil)}
	fields := []arrow.Field{
		{Name: "id1", Type: kernel.String, Nullable: true}, {Name: "id4", Type: kernel.Int64, Nullable: true},
		{Name: "v1", Type: kernel.Int64, Nullable: true}, {Name: "v3", Type: kernel.Float64, Nullable: true},
		{Name: "flag", Type: kernel.Bool, Nullable: true},
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// BenchmarkRead decodes 1M records of 5 fields on one core, against
// hamba's own decoder into a reused map as a baseline.
func BenchmarkRead(b *testing.B) {
	const n = 1_000_000
	rec := benchRecord(n)
	defer rec.Release()
	for _, codec := range []string{"none", "zstd", "deflate"} {
		var file bytes.Buffer
		if err := davro.Write(&file, []arrow.Record{rec}, davro.WriteOptions{Compression: codec}); err != nil {
			b.Fatal(err)
		}
		data := file.Bytes()
		b.Run(codec, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				got, err := davro.Read(bytes.NewReader(data), "bench.avro", nil)
				if err != nil {
					b.Fatal(err)
				}
				got.Release()
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "records/s")
		})
		if codec != "none" {
			continue
		}
		b.Run("hamba-map-"+codec, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				dec, err := ocf.NewDecoder(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				m := map[string]any{}
				for dec.HasNext() {
					if err := dec.Decode(&m); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "records/s")
		})
	}
}

func BenchmarkWrite(b *testing.B) {
	const n = 1_000_000
	rec := benchRecord(n)
	defer rec.Release()
	for _, codec := range []string{"none", "zstd", "deflate"} {
		b.Run(codec, func(b *testing.B) {
			var out bytes.Buffer
			for i := 0; i < b.N; i++ {
				out.Reset()
				if err := davro.Write(&out, []arrow.Record{rec}, davro.WriteOptions{Compression: codec}); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(out.Len()))
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "records/s")
		})
	}
}

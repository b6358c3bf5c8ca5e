package jsonl_test

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/duskdata/dusk/io/jsonl"
)

// benchLines makes n lines shaped like db-benchmark's groupby rows:
// {"id1":"id042","id4":17,"v1":3,"v3":12.345678,"flag":true}.
func benchLines(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 0, n*64)
	for i := 0; i < n; i++ {
		b = append(b, `{"id1":"id`...)
		k := r.IntN(100) + 1
		b = append(b, byte('0'+k/100), byte('0'+k/10%10), byte('0'+k%10))
		b = append(b, `","id4":`...)
		b = strconv.AppendInt(b, int64(r.IntN(100)+1), 10)
		b = append(b, `,"v1":`...)
		b = strconv.AppendInt(b, int64(r.IntN(5)+1), 10)
		b = append(b, `,"v3":`...)
		b = strconv.AppendFloat(b, float64(r.IntN(100_000_000))/1e6, 'f', 6, 64)
		b = append(b, `,"flag":`...)
		b = strconv.AppendBool(b, r.IntN(2) == 0)
		b = append(b, "}\n"...)
	}
	return b
}

var benchSchema = jsonl.Schema{
	{Name: "id1", Type: jsonl.String, Dictionary: true}, {Name: "id4", Type: jsonl.Int64},
	{Name: "v1", Type: jsonl.Int64}, {Name: "v3", Type: jsonl.Float64}, {Name: "flag", Type: jsonl.Bool},
}

// BenchmarkParse parses 1M lines on one core; MB/s is the parser's own
// speed, before any parallelism.
func BenchmarkParse(b *testing.B) {
	data := benchLines(1_000_000)
	for _, bc := range []struct {
		name   string
		schema jsonl.Schema
	}{
		{"dict", benchSchema},
		{"plain", jsonl.Schema{{Name: "id1", Type: jsonl.String}, benchSchema[1], benchSchema[2], benchSchema[3], benchSchema[4]}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				rec, err := jsonl.Parse(data, bc.schema, nil)
				if err != nil {
					b.Fatal(err)
				}
				rec.Release()
			}
			b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func BenchmarkInfer(b *testing.B) {
	data := benchLines(20_000) // about jsonl.SampleSize
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := jsonl.Infer(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	data := benchLines(1_000_000)
	rec, err := jsonl.Parse(data, benchSchema, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Release()
	var out bytes.Buffer
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		out.Reset()
		if err := jsonl.Write(&out, rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "rows/s")
}

package grpcnet

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/security"
	"github.com/duskdata/dusk/internal/transport/transporttest"
)

// tableRecord makes a record of about 1 GiB shaped like db-benchmark's
// groupby table: small integers, six-decimal floats, and dictionary indices.
func tableRecord() arrow.Record {
	const n = 1 << 24 // 16M rows of 64 bytes
	r := rand.New(rand.NewPCG(3, 4))
	var fields []arrow.Field
	var cols []arrow.Array
	for c, k := range []int64{100, 100, 100_000, 5, 15} {
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = r.Int64N(k) + 1
		}
		buf := memory.NewBufferBytes(unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), n*8))
		cols = append(cols, array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, buf}, nil, 0, 0)))
		fields = append(fields, arrow.Field{Name: "i" + string(rune('0'+c)), Type: arrow.PrimitiveTypes.Int64})
	}
	for c := 0; c < 3; c++ {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(r.Int64N(100_000_000)) / 1e6
		}
		buf := memory.NewBufferBytes(unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), n*8))
		cols = append(cols, array.NewFloat64Data(array.NewData(arrow.PrimitiveTypes.Float64, n, []*memory.Buffer{nil, buf}, nil, 0, 0)))
		fields = append(fields, arrow.Field{Name: "f" + string(rune('0'+c)), Type: arrow.PrimitiveTypes.Float64})
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, n)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// gibRecord makes a 1 GiB record of one column: random floats (which do not
// compress) or small integers (which do).
func gibRecord(compressible bool) arrow.Record {
	const n = 1 << 27 // 128M values of 8 bytes
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, n*8)
	var col arrow.Array
	if compressible {
		vals := unsafe.Slice((*int64)(unsafe.Pointer(&buf[0])), n)
		for i := range vals {
			vals[i] = r.Int64N(100)
		}
		col = array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0))
	} else {
		vals := unsafe.Slice((*float64)(unsafe.Pointer(&buf[0])), n)
		for i := range vals {
			vals[i] = r.Float64()
		}
		col = array.NewFloat64Data(array.NewData(arrow.PrimitiveTypes.Float64, n, []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0))
	}
	defer col.Release()
	return array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: col.DataType()}}, nil), []arrow.Array{col}, int64(n))
}

// BenchmarkTransfer1GiB moves a 1 GiB result from one endpoint to another
// over gRPC on loopback, as a worker fetches from a peer: encoding, chunks
// and decoding included; "same-host" sends it as plain Arrow IPC, as two
// processes of one machine do, "lz4" compresses it, as between machines;
// "+tls" does the same over mutual TLS. Each measures after one untimed
// transfer.
func BenchmarkTransfer1GiB(b *testing.B) {
	tl := benchTLS(b)
	for _, tt := range []struct {
		name string
		make func() arrow.Record
	}{
		{"random-floats", func() arrow.Record { return gibRecord(false) }},
		{"groupby-table", tableRecord},
		{"small-ints", func() arrow.Record { return gibRecord(true) }},
	} {
		for _, mode := range []struct {
			name string
			c    Compression
			tls  *security.TLS
		}{{"same-host", CompressAuto, nil}, {"same-host+tls", CompressAuto, tl}, {"lz4", CompressAlways, nil}, {"lz4+tls", CompressAlways, tl}} {
			b.Run(tt.name+"/"+mode.name, func(b *testing.B) {
				rec := tt.make()
				defer rec.Release()
				n := &Network{Compression: mode.c, TLS: mode.tls}
				ln, err := n.Listen("", &transporttest.Echo{Data: map[graph.Key]any{"big": rec}})
				if err != nil {
					b.Fatal(err)
				}
				defer ln.Close()
				conn, err := n.Dial(context.Background(), ln.Addr())
				if err != nil {
					b.Fatal(err)
				}
				defer conn.Close()
				b.SetBytes(1 << 30)
				// One transfer first, untimed, as a worker's heap is warm:
				// the first gigabyte a process receives is memory the
				// kernel maps in as it is written (about 0.2 s here).
				vals, err := conn.GetData(context.Background(), []graph.Key{"big"})
				if err != nil {
					b.Fatal(err)
				}
				vals["big"].(arrow.Record).Release()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					vals, err := conn.GetData(context.Background(), []graph.Key{"big"})
					if err != nil {
						b.Fatal(err)
					}
					got := vals["big"].(arrow.Record)
					if got.NumRows() != rec.NumRows() {
						b.Fatalf("%d rows", got.NumRows())
					}
					got.Release()
				}
			})
		}
	}
}

// benchTLS is the TLS material of an endpoint that both serves and dials.
func benchTLS(b *testing.B) *security.TLS {
	ca, err := security.NewAuthority("ca", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	f, err := ca.Write(b.TempDir(), "peer", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	return load(b, f, err)
}

// BenchmarkTransferTLS alternates 1 GiB transfers of the groupby-shaped
// record between a plain pair of endpoints and a mutual-TLS pair, as
// processes of one machine send (uncompressed), and reports both rates.
func BenchmarkTransferTLS(b *testing.B) {
	rec := tableRecord()
	defer rec.Release()
	get := func(n *Network) func() {
		ln, err := n.Listen("", &transporttest.Echo{Data: map[graph.Key]any{"big": rec}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ln.Close() })
		conn, err := n.Dial(context.Background(), ln.Addr())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		return func() {
			vals, err := conn.GetData(context.Background(), []graph.Key{"big"})
			if err != nil {
				b.Fatal(err)
			}
			vals["big"].(arrow.Record).Release()
		}
	}
	plain, secure := get(&Network{}), get(&Network{TLS: benchTLS(b)})
	plain()
	secure()
	var tp, ts time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		plain()
		t1 := time.Now()
		secure()
		tp, ts = tp+t1.Sub(t0), ts+time.Since(t1)
	}
	b.ReportMetric(float64(b.N)*float64(1<<30)/1e6/tp.Seconds(), "plain-MB/s")
	b.ReportMetric(float64(b.N)*float64(1<<30)/1e6/ts.Seconds(), "tls-MB/s")
	b.ReportMetric(tp.Seconds()/ts.Seconds(), "tls/plain")
}

// Package kernelbench is the table of Dusk's kernel benchmarks: each hot
// kernel (grouped aggregation, comparison, selection, arithmetic, hashing,
// gathers, the decoders a Parquet scan runs) timed over a million values
// beside the floor of the machine it runs on, a copy of the same bytes
// (memmove). The kernel package's BenchmarkKernels and `dusk bench kernels`
// both walk this one table, so the figures in docs/BENCHMARKS.md and a
// user's run measure the same loops.
//
// Must never import: scheduler, worker, dataframe, bag, array: it times
// kernels alone.
package kernelbench

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/pierrec/lz4/v4"

	"github.com/duskdata/dusk/internal/kernel"
)

// Rows is how many values each case reads.
const Rows = 1 << 20

// Case is one kernel timed: Setup builds its inputs once and returns the
// work of one run, which reads Bytes bytes of Rows values (or writes them,
// for the decoders: their output is the column a scan makes).
type Case struct {
	Name  string // "sum-float/groups=4"
	Group string // "floor", "aggregate", "filter", "arith", "hash", "take", "decode"
	Bytes int64
	Setup func() (run func() error)
}

// Floor is the name of the copy every case is compared with.
const Floor = "copy"

// Cases is the table, the floor first.
func Cases() []Case {
	out := []Case{{Name: Floor, Group: "floor", Bytes: 8 * Rows, Setup: func() func() error {
		src, dst := floats(), make([]float64, Rows)
		return func() error { copy(dst, src); return nil }
	}}}
	for _, groups := range []int{1, 4, 1000, Rows} {
		for _, a := range []struct {
			name string
			f    kernel.AggFunc
			ints bool
		}{{"sum-float", kernel.Sum, false}, {"sum-int", kernel.Sum, true}, {"mean-float", kernel.Mean, false},
			{"min-float", kernel.Min, false}, {"max-float", kernel.Max, false}, {"count", kernel.Count, false}} {
			out = append(out, Case{Name: fmt.Sprintf("%s/groups=%d", a.name, groups), Group: "aggregate", Bytes: 8 * Rows,
				Setup: func() func() error {
					col := arrow.Array(kernel.NewFloat64(floats(), nil))
					if a.ints {
						col = kernel.NewInt64(ints(1000), nil)
					}
					ids := groupIDs(groups)
					return func() error {
						st, err := kernel.Partial(a.f, []arrow.Array{col}, ids, groups)
						for _, s := range st {
							s.Release()
						}
						return err
					}
				}})
		}
	}
	out = append(out,
		Case{Name: "compare-int>scalar", Group: "filter", Bytes: 8 * Rows, Setup: func() func() error {
			col := kernel.Col(kernel.NewInt64(ints(1000), nil))
			return func() error { _, err := kernel.Compare(col, kernel.Scalar(int64(500)), kernel.Gt, Rows); return err }
		}},
		Case{Name: "compare-float<float", Group: "filter", Bytes: 16 * Rows, Setup: func() func() error {
			y := floats()
			slices.Reverse(y)
			a, b := kernel.Col(kernel.NewFloat64(floats(), nil)), kernel.Col(kernel.NewFloat64(y, nil))
			return func() error { _, err := kernel.Compare(a, b, kernel.Lt, Rows); return err }
		}},
		Case{Name: "filter-float/mask-half", Group: "filter", Bytes: 8 * Rows, Setup: func() func() error {
			rec := record(kernel.NewFloat64(floats(), nil))
			sel := mask(2)
			return func() error { kernel.Filter(rec, sel).Release(); return nil }
		}},
		Case{Name: "filter-float/selection-vector-tenth", Group: "filter", Bytes: 8 * Rows, Setup: func() func() error {
			col := kernel.NewFloat64(floats(), nil)
			sel := mask(10)
			rows := kernel.SelectedRows(sel, kernel.CountSelected(sel))
			return func() error { kernel.Take(col, rows).Release(); return nil }
		}},
		Case{Name: "add-float+float", Group: "arith", Bytes: 16 * Rows, Setup: func() func() error {
			a, b := kernel.Col(kernel.NewFloat64(floats(), nil)), kernel.Col(kernel.NewFloat64(floats(), nil))
			return func() error { return release(kernel.Arith(a, b, kernel.Add, Rows)) }
		}},
		Case{Name: "mul-int*int", Group: "arith", Bytes: 16 * Rows, Setup: func() func() error {
			a, b := kernel.Col(kernel.NewInt64(ints(1000), nil)), kernel.Col(kernel.NewInt64(ints(1000), nil))
			return func() error { return release(kernel.Arith(a, b, kernel.Mul, Rows)) }
		}},
		Case{Name: "hash/1-key", Group: "hash", Bytes: 8 * Rows, Setup: func() func() error {
			cols := []arrow.Array{kernel.NewInt64(ints(1<<40), nil)}
			out := make([]uint64, Rows)
			return func() error { kernel.HashRows(cols, out); return nil }
		}},
		Case{Name: "hash/2-keys", Group: "hash", Bytes: 16 * Rows, Setup: func() func() error {
			cols := []arrow.Array{kernel.NewInt64(ints(1<<40), nil), kernel.NewInt64(ints(1<<40), nil)}
			out := make([]uint64, Rows)
			return func() error { kernel.HashRows(cols, out); return nil }
		}},
		Case{Name: "take-float/sequential", Group: "take", Bytes: 8 * Rows, Setup: func() func() error {
			col := kernel.NewFloat64(floats(), nil)
			idx := make([]int32, Rows)
			for i := range idx {
				idx[i] = int32(i)
			}
			return func() error { kernel.Take(col, idx).Release(); return nil }
		}},
		Case{Name: "take-float/random", Group: "take", Bytes: 8 * Rows, Setup: func() func() error {
			col := kernel.NewFloat64(floats(), nil)
			idx := make([]int32, Rows)
			r := rand.New(rand.NewPCG(3, 4))
			for i := range idx {
				idx[i] = r.Int32N(Rows)
			}
			return func() error { kernel.Take(col, idx).Release(); return nil }
		}},
		Case{Name: "dictionary-decode-float/1k-values", Group: "decode", Bytes: 8 * Rows, Setup: func() func() error {
			// A dictionary page's values and a data page's indices, as a
			// Parquet scan decodes them: a gather from a small table.
			dict := kernel.NewFloat64(floats()[:1000], nil)
			idx := make([]int32, Rows)
			for i, v := range ints(1000) {
				idx[i] = int32(v)
			}
			return func() error { kernel.Take(dict, idx).Release(); return nil }
		}},
		Case{Name: "bit-unpack/10-bits", Group: "decode", Bytes: 4 * Rows, Setup: func() func() error {
			enc := &rle.Encoding{BitWidth: 10}
			vals := make([]int32, Rows)
			for i, v := range ints(1000) {
				vals[i] = int32(v)
			}
			src, err := enc.EncodeInt32(nil, vals)
			dst := make([]int32, 0, Rows)
			return func() error {
				if err != nil {
					return err
				}
				_, err := enc.DecodeInt32(dst, src)
				return err
			}
		}},
	)
	for _, c := range codecs {
		out = append(out, Case{Name: c.name + "-decode", Group: "decode", Bytes: 8 * Rows, Setup: func() func() error {
			raw := scanBytes()
			packed, err := c.compress(raw)
			dst := make([]byte, len(raw))
			return func() error {
				if err != nil {
					return err
				}
				return c.decompress(dst, packed)
			}
		}})
	}
	return out
}

// codecs are the decompressors a Parquet scan or a transfer runs.
var codecs = []struct {
	name       string
	compress   func(raw []byte) ([]byte, error)
	decompress func(dst, src []byte) error
}{
	{"snappy", func(raw []byte) ([]byte, error) { return s2.EncodeSnappy(nil, raw), nil },
		func(dst, src []byte) error { _, err := s2.Decode(dst, src); return err }},
	{"zstd", func(raw []byte) ([]byte, error) {
		w, err := zstd.NewWriter(nil)
		if err != nil {
			return nil, err
		}
		defer w.Close()
		return w.EncodeAll(raw, nil), nil
	}, func() func(dst, src []byte) error {
		r, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		return func(dst, src []byte) error {
			if err != nil {
				return err
			}
			_, err := r.DecodeAll(src, dst[:0])
			return err
		}
	}()},
	{"lz4", func(raw []byte) ([]byte, error) {
		var buf bytes.Buffer
		w := lz4.NewWriter(&buf)
		if _, err := w.Write(raw); err != nil {
			return nil, err
		}
		err := w.Close()
		return buf.Bytes(), err
	}, func(dst, src []byte) error {
		_, err := io.ReadFull(lz4.NewReader(bytes.NewReader(src)), dst)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("lz4: the frame holds fewer than %d bytes", len(dst))
		}
		return err
	}},
}

// scanBytes are 8 MiB as a TPC-H column's pages hold them: prices of two
// decimals as float64s, many repeating.
func scanBytes() []byte {
	r := rand.New(rand.NewPCG(5, 6))
	out := make([]byte, 0, 8*Rows)
	for range Rows {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(float64(r.IntN(100_000))/100))
	}
	return out
}

func floats() []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]float64, Rows)
	for i := range out {
		out[i] = r.Float64() * 100
	}
	return out
}

func ints(n int64) []int64 {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	out := make([]int64, Rows)
	for i := range out {
		out[i] = r.Int64N(n)
	}
	return out
}

// groupIDs assigns the rows to groups at random.
func groupIDs(groups int) []int32 {
	r := rand.New(rand.NewPCG(uint64(groups), 8))
	ids := make([]int32, Rows)
	for i := range ids {
		ids[i] = int32(r.IntN(groups))
	}
	return ids
}

// mask keeps one row in every.
func mask(every int) []uint8 {
	r := rand.New(rand.NewPCG(uint64(every), 9))
	sel := make([]uint8, Rows)
	for i := range sel {
		if r.IntN(every) == 0 {
			sel[i] = 1
		}
	}
	return sel
}

func record(col arrow.Array) arrow.Record {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: col.DataType()}}, nil)
	return array.NewRecord(schema, []arrow.Array{col}, Rows)
}

func release(a arrow.Array, err error) error {
	if a != nil {
		a.Release()
	}
	return err
}

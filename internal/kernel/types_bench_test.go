package kernel

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
)

// The targets per core: Year of 10M dates or timestamps at 500M
// values/s, Contains on plain strings at 1 GB/s, a cast of integer text at
// 150 MB/s. Run: go test -bench 'Year|Contains|CastStrings' -benchtime 10x ./internal/kernel/

const benchRows = 10_000_000

// benchShapes are the ways the Year benchmarks take 10M values: as one
// column, and as the engine does, a partition of 1M rows a task.
var benchShapes = []struct {
	name  string
	parts int
}{{"one-column", 1}, {"partitions-of-1M", 10}}

func BenchmarkDateYear(b *testing.B) {
	days := make([]int32, benchRows)
	rng := rand.New(rand.NewSource(1))
	for i := range days {
		days[i] = int32(rng.Intn(20000)) // 1970 to 2024
	}
	for _, shape := range benchShapes {
		b.Run(shape.name, func(b *testing.B) {
			b.SetBytes(4 * benchRows)
			for range b.N {
				for p := range shape.parts {
					DateFields(days[p*benchRows/shape.parts:(p+1)*benchRows/shape.parts], Year)
				}
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
		})
	}
}

func BenchmarkTimestampYear(b *testing.B) {
	vals := make([]int64, benchRows)
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for i := range vals {
		vals[i] = start + int64(i)*3_000_000 // every 3 s, a year's span
	}
	for _, tz := range []string{"UTC", "America/New_York"} {
		loc, err := Location(tz)
		if err != nil {
			b.Fatal(err)
		}
		for _, shape := range benchShapes {
			b.Run(tz+"/"+shape.name, func(b *testing.B) {
				b.SetBytes(8 * benchRows)
				for range b.N {
					for p := range shape.parts {
						TimeFields(vals[p*benchRows/shape.parts:(p+1)*benchRows/shape.parts], arrow.Microsecond, loc, Year)
					}
				}
				b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
			})
		}
	}
}

// benchText makes n strings of about 20 bytes, one in 100 holding "needle".
func benchText(n int) ([]string, int64) {
	rng := rand.New(rand.NewSource(2))
	out := make([]string, n)
	size := int64(0)
	for i := range out {
		s := fmt.Sprintf("item-%08d-%06d", rng.Intn(1e8), rng.Intn(1e6))
		if rng.Intn(100) == 0 {
			s = s[:8] + "needle" + s[14:]
		}
		out[i] = s
		size += int64(len(s))
	}
	return out, size
}

func BenchmarkContains(b *testing.B) {
	strs, size := benchText(benchRows)
	offs, data := stringOffsets(strs)
	plain := NewString(offs, data, nil)
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(size)
		for range b.N {
			Contains(plain, []byte("needle"))
		}
	})
	distinct := make([]string, 1000)
	copy(distinct, strs)
	doffs, ddata := stringOffsets(distinct)
	idx := make([]int32, benchRows)
	for i := range idx {
		idx[i] = int32(i % len(distinct))
	}
	dict := NewDict(idx, NewString(doffs, ddata, nil), nil)
	b.Run("dictionary", func(b *testing.B) {
		b.SetBytes(size)
		for range b.N {
			Contains(dict, []byte("needle"))
		}
	})
}

func BenchmarkCastStringsToInt(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	strs := make([]string, benchRows)
	size := int64(0)
	for i := range strs {
		strs[i] = strconv.FormatInt(rng.Int63n(2e9)-1e9, 10)
		size += int64(len(strs[i]))
	}
	offs, data := stringOffsets(strs)
	col := NewString(offs, data, nil)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		if _, err := Cast(col, KindInt, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNarrowCopy is the memory's bound for the Year benchmarks: a
// plain copy of 10M int64s into a new int32 column, one core.
func BenchmarkNarrowCopy(b *testing.B) {
	vals := make([]int64, benchRows)
	for i := range vals {
		vals[i] = int64(i)
	}
	b.SetBytes(8 * benchRows)
	for range b.N {
		out := make([]int32, len(vals))
		for i, v := range vals {
			out[i] = int32(v)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
}

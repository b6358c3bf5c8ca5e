package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A page header whose sizes or counts claim more than the file holds is
// an error that names the file, the row group, the column and the page,
// before anything of that size is allocated.
func TestDamagedPageHeaders(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cols := []col{genCol(r, "i", "int", 3000, 3, 0), genCol(r, "d", "dict", 3000, 5, 9)}
	schema, recs := records(cols, []int{0, 3000})
	for _, codec := range []string{"none", "snappy", "zstd"} {
		_, data := writeFile(t, schema, recs, WriteOptions{RowGroupRows: 1000, Compression: codec})
		const path = "data/x.parquet"
		f, err := open(bytes.NewReader(data), int64(len(data)), path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name, col string
			damage    func(h *format.PageHeader)
			want      string
		}{
			{"compressed size", "i", func(h *format.PageHeader) { h.CompressedPageSize = math.MaxInt32 }, "2147483647"},
			{"uncompressed size", "i", func(h *format.PageHeader) { h.UncompressedPageSize = math.MaxInt32 }, "2147483647"},
			{"value count", "i", func(h *format.PageHeader) {
				h.DataPageHeader.V.NumValues, h.DataPageHeaderV2.V.NumValues = math.MaxInt32, math.MaxInt32
			}, "2147483647 values"},
			{"dictionary size", "d", func(h *format.PageHeader) { h.DictionaryPageHeader.V.NumValues = math.MaxInt32 }, "dictionary of 2147483647 values"},
		} {
			// The first page of the column's chunk in row group 0: what
			// follows it moves, but nothing before it is read.
			leaf := map[string]int{"i": 0, "d": 1}[c.col]
			m := f.file.Metadata().RowGroups[0].Columns[leaf].MetaData
			start := m.DataPageOffset
			if d := m.DictionaryPageOffset; d > 0 && d < start {
				start = d
			}
			var buf []byte
			h, n, err := readHeader(bytes.NewReader(data), start, start+m.TotalCompressedSize, &buf)
			if err != nil {
				t.Fatal(err)
			}
			bad := *h
			c.damage(&bad)
			var enc bytes.Buffer
			if err := thrift.NewEncoder((&thrift.CompactProtocol{}).NewWriter(&enc)).Encode(&bad); err != nil {
				t.Fatal(err)
			}
			b := append(append(append([]byte{}, data[:start]...), enc.Bytes()...), data[start+int64(n):]...)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rd := bytes.NewReader(b)
			_, err = Read(rd, rd.Size(), path, nil, []string{c.col})
			runtime.ReadMemStats(&after)
			what := fmt.Sprintf("%s, %s", codec, c.name)
			prefix := fmt.Sprintf("read %s: row group 0 column %s: page 0 at byte %d: ", path, c.col, start)
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: err = %v; want it to start %q and say %q", what, err, prefix, c.want)
			}
			var ce *ChunkError
			var pe *PageError
			if !errors.As(err, &ce) || ce.RowGroup != 0 || ce.Column != c.col || !errors.As(err, &pe) || pe.Page != 0 || pe.Offset != start {
				t.Errorf("%s: err %v is not a ChunkError of row group 0 column %s around a PageError of page 0 at %d", what, err, c.col, start)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("%s: reading allocated %d MiB", what, grew>>20)
			}
		}
	}
}

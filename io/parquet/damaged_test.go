package parquet

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// TestDamagedKinds reads files made from valid ones with the damage of
// issue 54's kinds 3 to 7 (1 and 2, the footers, are TestDamagedFooters'):
// each fails naming the file and what is wrong, allocating at most 64 MiB
// (they allocated 4 to 32 GiB, or ran for seconds holding gigabytes, and
// two ended the process). The time each took is logged, not asserted.
func TestDamagedKinds(t *testing.T) {
	r := rand.New(rand.NewPCG(54, 7))
	schema, recs := records([]col{genCol(r, "i", "int", 100, 3, 0), genCol(r, "s", "string", 100, 4, 3)}, []int{0, 100})
	_, plain := writeFile(t, schema, recs, WriteOptions{Compression: "none"})
	const huge = math.MaxInt32
	// Past the memory ceiling a claim of 2^31-1 rows is refused outright;
	// raised, the claims reach the pages, whose checks are under test.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 50))
	run := binary.AppendUvarint(nil, huge<<1) // an RLE run of 2^31-1 values
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"3: rows claimed past the pages", withFooter(t, plain, func(m *format.FileMetaData) {
			m.NumRows, m.RowGroups[0].NumRows = huge, huge
		}), "its pages hold 100 values, the row group 2147483647 rows"},
		{"4: a page's values and the rows agree", withPages(t, withFooter(t, plain, func(m *format.FileMetaData) {
			m.NumRows, m.RowGroups[0].NumRows = huge, huge
		}), func(c int, h *format.PageHeader, body []byte) []byte {
			if h.DataPageHeaderV2.Valid {
				h.DataPageHeaderV2.V.NumValues, h.DataPageHeaderV2.V.NumRows = huge, huge
			}
			return body
		}), "decoding level expected 2147483647 values but got only 100"},
		{"5: a run past a page's definition levels", withPages(t, plain, func(c int, h *format.PageHeader, body []byte) []byte {
			if c != 0 || !h.DataPageHeaderV2.Valid {
				return body
			}
			v := &h.DataPageHeaderV2.V // repetition levels none, definition levels, values
			n := v.DefinitionLevelsByteLength
			v.DefinitionLevelsByteLength += int32(len(run) + 1)
			return append(append(slices.Clone(body[:n]), append(run, 1)...), body[n:]...)
		}), "decoding definition levels of data page v2: decoding levels of a page of 100 values: runs of more than 307 values"},
		{"5: a run past a page's dictionary indices", withPages(t, plain, func(c int, h *format.PageHeader, body []byte) []byte {
			if c != 1 || !h.DataPageHeaderV2.Valid {
				return body
			}
			return append(slices.Clone(body), run...) // the indices end the page
		}), "decoding RLE_DICTIONARY values: runs of more than 314 values"},
		{"6: a delta header claiming 2^31-1 values", deltaFile(t, &parquet.DeltaBinaryPacked, huge),
			"decoding DELTA_BINARY_PACKED values: a delta header of 2147483647 values in a page of 100"},
		{"6: a delta length header claiming 2^31-1 values", deltaFile(t, &parquet.DeltaLengthByteArray, huge),
			"decoding DELTA_LENGTH_BYTE_ARRAY values: a delta header of 2147483647 values in a page of 100"},
		{"7: the dictionary after the data", withFooter(t, plain, func(m *format.FileMetaData) {
			cc := &m.RowGroups[0].Columns[1].MetaData
			cc.DictionaryPageOffset = cc.DataPageOffset + 1
		}), "the dictionary page at byte"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := Read(bytes.NewReader(c.file), int64(len(c.file)), "data/bad.parquet", nil, nil)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.HasPrefix(err.Error(), "read data/bad.parquet") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("kind %s: %v, want an error naming the file and %q", c.name, err, c.want)
		}
		got := after.TotalAlloc - before.TotalAlloc
		if got > 64<<20 {
			t.Errorf("kind %s: allocated %d bytes", c.name, got)
		}
		t.Logf("kind %s: %v, %d KiB allocated", c.name, took, got>>10)
	}
}

// deltaFile is a file of one required column of 100 values written by
// parquet-go with a delta encoding, uncompressed (int64s for
// DELTA_BINARY_PACKED, strings for the others), its page's first delta
// header then made to claim total values.
func deltaFile(t *testing.T, enc encoding.Encoding, total uint64) []byte {
	t.Helper()
	leaf, value := parquet.Leaf(parquet.Int64Type), func(i int) parquet.Value { return parquet.Int64Value(int64(i * 3)) }
	if enc.Encoding() != format.DeltaBinaryPacked {
		leaf, value = parquet.String(), func(i int) parquet.Value { return parquet.ByteArrayValue([]byte(strings.Repeat("x", i%7))) }
	}
	schema := parquet.NewSchema("t", parquet.Group{"d": parquet.Encoded(leaf, enc)})
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[any](&buf, schema, parquet.Compression(&parquet.Uncompressed))
	rows := make([]parquet.Row, 100)
	for i := range rows {
		rows[i] = parquet.Row{value(i).Level(0, 0, 0)}
	}
	if _, err := w.WriteRows(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return withPages(t, buf.Bytes(), func(_ int, h *format.PageHeader, body []byte) []byte {
		if !h.DataPageHeaderV2.Valid {
			return body
		}
		// The header: block size, mini-blocks, total values, first value.
		out := slices.Clone(body)
		block, n1 := binary.Uvarint(out)
		mini, n2 := binary.Uvarint(out[n1:])
		_, n3 := binary.Uvarint(out[n1+n2:])
		head := binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(nil, block), mini), total)
		return append(head, out[n1+n2+n3:]...)
	})
}

// withPages rewrites an uncompressed file of one row group page by page:
// edit may change each page's header and return its new body (c is the
// column's index); sizes and offsets follow, and the page indexes go.
func withPages(t *testing.T, data []byte, edit func(c int, h *format.PageHeader, body []byte) []byte) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	var meta format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[len(data)-8-n:len(data)-8], &meta); err != nil {
		t.Fatal(err)
	}
	out := []byte("PAR1")
	var buf []byte
	for c := range meta.RowGroups[0].Columns {
		cc := &meta.RowGroups[0].Columns[c]
		m := &cc.MetaData
		if m.Codec != format.Uncompressed {
			t.Fatalf("column %d is compressed (%v)", c, m.Codec)
		}
		pos := m.DataPageOffset
		if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < pos {
			pos = m.DictionaryPageOffset
		}
		end := pos + m.TotalCompressedSize
		start := int64(len(out))
		m.DictionaryPageOffset, m.DataPageOffset = 0, 0
		for pos < end {
			h, hn, err := readHeader(bytes.NewReader(data), pos, end, &buf)
			if err != nil {
				t.Fatal(err)
			}
			body := data[pos+int64(hn) : pos+int64(hn)+int64(h.CompressedPageSize)]
			pos += int64(hn) + int64(h.CompressedPageSize)
			body = edit(c, h, body)
			h.CompressedPageSize, h.UncompressedPageSize = int32(len(body)), int32(len(body))
			h.CRC = 0
			head, err := thrift.Marshal(new(thrift.CompactProtocol), h)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case h.DictionaryPageHeader.Valid:
				m.DictionaryPageOffset = int64(len(out))
			case m.DataPageOffset == 0:
				m.DataPageOffset = int64(len(out))
			}
			out = append(append(out, head...), body...)
		}
		m.TotalCompressedSize = int64(len(out)) - start
		m.TotalUncompressedSize = m.TotalCompressedSize
		cc.FileOffset = start
		cc.ColumnIndexOffset, cc.ColumnIndexLength, cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0, 0, 0
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &meta)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

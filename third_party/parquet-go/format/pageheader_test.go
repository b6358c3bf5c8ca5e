package format

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
)

// reflective decodes a page header from b with thrift.Decoder, and returns
// the bytes it took.
func reflective(b []byte) (*PageHeader, int, error) {
	h := new(PageHeader)
	r := bytes.NewReader(b)
	err := thrift.NewDecoder((&thrift.CompactProtocol{}).NewReader(r)).Decode(h)
	return h, len(b) - r.Len(), err
}

func randomStatistics(r *rand.Rand) Statistics {
	bytesOf := func() []byte {
		if r.Intn(3) == 0 {
			return nil
		}
		b := make([]byte, r.Intn(40))
		r.Read(b)
		return b
	}
	return Statistics{Max: bytesOf(), Min: bytesOf(), NullCount: r.Int63n(1 << 40), DistinctCount: r.Int63n(100),
		MaxValue: bytesOf(), MinValue: bytesOf()}
}

func randomHeader(r *rand.Rand) PageHeader {
	i32 := func() int32 { return int32(r.Uint32()) }
	h := PageHeader{Type: PageType(r.Intn(4)), UncompressedPageSize: i32(), CompressedPageSize: i32()}
	if r.Intn(2) == 0 {
		h.CRC = i32()
	}
	switch r.Intn(4) {
	case 0:
		h.DataPageHeader = thrift.New(DataPageHeader{NumValues: i32(), Encoding: Encoding(r.Intn(10)),
			DefinitionLevelEncoding: RLE, RepetitionLevelEncoding: BitPacked})
		if r.Intn(2) == 0 {
			h.DataPageHeader.V.Statistics = randomStatistics(r)
		}
	case 1:
		h.DictionaryPageHeader = thrift.New(DictionaryPageHeader{NumValues: i32(), Encoding: Plain, IsSorted: r.Intn(2) == 0})
	case 2:
		h.DataPageHeaderV2 = thrift.New(DataPageHeaderV2{NumValues: i32(), NumNulls: i32(), NumRows: i32(),
			Encoding: Encoding(r.Intn(10)), DefinitionLevelsByteLength: i32(), RepetitionLevelsByteLength: i32()})
		if r.Intn(2) == 0 {
			h.DataPageHeaderV2.V.IsCompressed = thrift.New(r.Intn(2) == 0)
		}
		if r.Intn(2) == 0 {
			h.DataPageHeaderV2.V.Statistics = randomStatistics(r)
		}
	case 3:
		h.IndexPageHeader = thrift.New(IndexPageHeader{})
	}
	return h
}

// TestDecodePageHeader: headers written by thrift's encoder decode as
// thrift.Decoder decodes them, taking the same bytes, followed by anything.
func TestDecodePageHeader(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 3000 {
		want := randomHeader(r)
		b, err := thrift.Marshal(new(thrift.CompactProtocol), &want)
		if err != nil {
			t.Fatal(err)
		}
		tail := []byte{0xde, 0xad}
		var got PageHeader
		n, ok := DecodePageHeader(append(b, tail...), &got)
		if !ok || n != len(b) {
			t.Fatalf("%+v: ok %v, %d of %d bytes", want, ok, n, len(b))
		}
		slow, m, err := reflective(append(b, tail...))
		if err != nil || m != n || !reflect.DeepEqual(&got, slow) {
			t.Fatalf("decoded %+v, thrift.Decoder %+v (%d bytes, %v)", got, *slow, m, err)
		}
		for cut := range b { // cut short: never ok
			if _, ok := DecodePageHeader(b[:cut], &got); ok || !reflect.DeepEqual(got, PageHeader{}) {
				t.Fatalf("%+v cut to %d of %d bytes: ok %v, left %+v", want, cut, len(b), ok, got)
			}
		}
	}
}

// FuzzDecodePageHeader: whatever the bytes, where DecodePageHeader says ok,
// thrift.Decoder decodes the same header from the same bytes.
func FuzzDecodePageHeader(f *testing.F) {
	r := rand.New(rand.NewSource(2))
	for range 20 {
		h := randomHeader(r)
		b, _ := thrift.Marshal(new(thrift.CompactProtocol), &h)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got PageHeader
		n, ok := DecodePageHeader(b, &got)
		if !ok {
			return
		}
		slow, m, err := reflective(b)
		if err != nil || m != n || !reflect.DeepEqual(&got, slow) {
			t.Fatalf("%x: decoded %+v in %d bytes, thrift.Decoder %+v in %d (%v)", b, got, n, *slow, m, err)
		}
	})
}

package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/snappy"
	"github.com/pierrec/lz4/v4"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Sizes read from a file are claims: parquet-go allocates what a page
// header says before it reads the page, so a damaged header would cost
// gigabytes. checkChunk reads a column chunk's page headers first and holds
// every claim to the bytes that are there.
const (
	// smallPage is the size under which a page's uncompressed size is taken
	// as it is: its buffer costs little, whatever the compression.
	smallPage = 64 << 20
	// maxRatio bounds a larger page's uncompressed size by its compressed
	// size, for every codec but snappy's (whose format bounds it nearer)
	// and none: deflate's own limit is 1032, and pages of other codecs that
	// compress further are small.
	maxRatio = 1100
	// maxHeader is the most a page header may take, statistics and all.
	maxHeader = 16 << 20
)

// ChunkError is an error reading a column chunk: the file, the row group
// and the column it is in; a damaged page's is a PageError inside it.
type ChunkError struct {
	Path     string
	RowGroup int
	Column   string
	Err      error
}

func (e *ChunkError) Error() string {
	return fmt.Sprintf("read %s: row group %d column %s: %v", e.Path, e.RowGroup, e.Column, e.Err)
}

func (e *ChunkError) Unwrap() error { return e.Err }

// PageError is an error in a page of a column chunk: its number in the
// chunk and, where known, the byte of the file its header starts at.
type PageError struct {
	Page   int
	Offset int64 // -1: not known
	Err    error
}

func (e *PageError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("page %d: %v", e.Page, e.Err)
	}
	return fmt.Sprintf("page %d at byte %d: %v", e.Page, e.Offset, e.Err)
}

func (e *PageError) Unwrap() error { return e.Err }

// checkChunk checks column chunk c of row group g against the file of size
// bytes before it is decoded: it lies within the file, its pages fill it,
// each page's sizes fit the bytes it has, and its data pages hold as many
// values as the row group has rows.
//
// It returns where the chunk's data pages start and the row each starts at,
// for reading the rows of some pages only (see reading.narrow).
func (f *file) checkChunk(r io.ReaderAt, size int64, g int, c *column) ([]pageAt, error) {
	rg := &f.file.Metadata().RowGroups[g]
	m := &rg.Columns[c.leaf].MetaData
	// parquet-go starts reading at the dictionary page where the chunk
	// names one, so that is where the checks start too.
	start := m.DataPageOffset
	if d := m.DictionaryPageOffset; d > start {
		return nil, fmt.Errorf("the dictionary page at byte %d comes after the first data page, at byte %d", d, start)
	} else if d != 0 {
		start = d
	}
	end := start + m.TotalCompressedSize
	if start < 4 || m.TotalCompressedSize < 0 || end > size-8 || end < start {
		return nil, fmt.Errorf("the column chunk claims bytes %d to %d, outside the file's %d", start, end, size)
	}
	var buf []byte
	var values int64
	var pages []pageAt
	for pos, page := start, 0; pos < end; page++ {
		h, n, err := readHeader(r, pos, end, &buf)
		if err != nil {
			return nil, &PageError{Page: page, Offset: pos, Err: fmt.Errorf("header: %w", err)}
		}
		if err := checkPage(h, m.Codec, end-pos-int64(n), rg.NumRows-values); err != nil {
			return nil, &PageError{Page: page, Offset: pos, Err: err}
		}
		if err := checkCompressed(r, pos+int64(n), h, m.Codec); err != nil {
			return nil, &PageError{Page: page, Offset: pos, Err: err}
		}
		switch {
		case h.DataPageHeader.Valid:
			pages = append(pages, pageAt{offset: pos, row: values})
			values += int64(h.DataPageHeader.V.NumValues)
		case h.DataPageHeaderV2.Valid:
			pages = append(pages, pageAt{offset: pos, row: values})
			values += int64(h.DataPageHeaderV2.V.NumValues)
		}
		pos += int64(n) + int64(h.CompressedPageSize)
	}
	if values != rg.NumRows {
		return nil, fmt.Errorf("its pages hold %d values, the row group %d rows", values, rg.NumRows)
	}
	return pages, nil
}

// pageAt is where a data page starts in the file and the first row it holds.
type pageAt struct{ offset, row int64 }

// readHeader decodes the page header at pos, reading no further than end,
// and returns it and its length.
func readHeader(r io.ReaderAt, pos, end int64, buf *[]byte) (*format.PageHeader, int, error) {
	for window := int64(256); ; window *= 8 {
		n := min(window, end-pos, maxHeader)
		if int64(cap(*buf)) < n {
			*buf = make([]byte, n)
		}
		b := (*buf)[:n]
		if _, err := r.ReadAt(b, pos); err != nil && err != io.EOF {
			return nil, 0, err
		}
		h := new(format.PageHeader)
		if hn, ok := format.DecodePageHeader(b, h); ok { // takes no length on trust
			return h, hn, nil
		}
		// Anything else is walked first, so that thrift.Decoder takes no
		// length in it on trust; a walk that runs out of the window may
		// need a larger one.
		w := &thriftWalk{b: b}
		if err := w.structure(0); err != nil {
			if n < window {
				return nil, 0, err // all there was: the header is damaged
			}
			continue
		}
		if err := thrift.NewDecoder((&thrift.CompactProtocol{}).NewReader(bytes.NewReader(b[:w.pos]))).Decode(h); err != nil {
			return nil, 0, err
		}
		return h, w.pos, nil
	}
}

// checkPage holds a page header's claims to the left bytes of its chunk
// after the header, and its values to the rows the chunk has yet to give.
func checkPage(h *format.PageHeader, codec format.CompressionCodec, left, rows int64) error {
	comp, uncomp := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	switch {
	case comp < 0 || uncomp < 0:
		return fmt.Errorf("negative page size (compressed %d, uncompressed %d)", comp, uncomp)
	case codec == format.Uncompressed && uncomp != comp:
		return fmt.Errorf("an uncompressed page of %d bytes claims %d uncompressed", comp, uncomp)
	case uncomp > smallPage && uncomp > comp*ratio(codec):
		return fmt.Errorf("uncompressed size %d is more than %d times the compressed %d", uncomp, ratio(codec), comp)
	}
	n := int64(-1) // a data page's values
	switch {
	case h.DataPageHeader.Valid:
		n = int64(h.DataPageHeader.V.NumValues)
	case h.DataPageHeaderV2.Valid:
		v := h.DataPageHeaderV2.V
		n = int64(v.NumValues)
		if l := int64(v.DefinitionLevelsByteLength) + int64(v.RepetitionLevelsByteLength); l > comp || l > uncomp {
			return fmt.Errorf("levels of %d bytes in a page of %d", l, comp)
		}
	case h.DictionaryPageHeader.Valid:
		// A value takes a byte at least: its count bounds what it costs.
		if d := int64(h.DictionaryPageHeader.V.NumValues); d < 0 || d > uncomp {
			return fmt.Errorf("dictionary of %d values in %d bytes", d, uncomp)
		}
	case h.Type != format.IndexPage:
		return fmt.Errorf("page of type %v without its header", h.Type)
	}
	if n != -1 && (n < 0 || n > rows) {
		return fmt.Errorf("%d values, where the row group has %d rows left", n, rows)
	}
	if comp > left {
		return fmt.Errorf("compressed size %d exceeds the %d bytes left in the column chunk", comp, left)
	}
	return nil
}

// checkCompressed holds what a page's compressed bytes say of their own
// size to the size its header claims, where parquet-go's decoders would
// trust the bytes: snappy allocates the length its preamble gives, and a
// damaged LZ4 block makes parquet-go double its buffer without end. An LZ4
// page is decoded here into a buffer of the claimed size (the header's
// claim was bounded by checkPage).
func checkCompressed(r io.ReaderAt, at int64, h *format.PageHeader, codec format.CompressionCodec) error {
	comp, uncomp := int(h.CompressedPageSize), int(h.UncompressedPageSize)
	data := int64(0)
	if v2 := h.DataPageHeaderV2; v2.Valid {
		if c := v2.V.IsCompressed; c.Valid && !c.V {
			return nil
		}
		data = int64(v2.V.DefinitionLevelsByteLength) + int64(v2.V.RepetitionLevelsByteLength)
	}
	comp -= int(data)
	uncomp -= int(data)
	switch codec {
	case format.Snappy:
		head := make([]byte, min(comp, binary.MaxVarintLen32))
		if _, err := r.ReadAt(head, at+data); err != nil {
			return err
		}
		if n, err := snappy.DecodedLen(head); err != nil || n != uncomp {
			return fmt.Errorf("snappy data of %d bytes decodes to %d, the page claims %d (%v)", comp, n, uncomp, err)
		}
	case format.Lz4Raw:
		src := make([]byte, comp)
		if _, err := r.ReadAt(src, at+data); err != nil {
			return err
		}
		if got, err := lz4.UncompressBlock(src, make([]byte, uncomp)); err != nil || got != uncomp {
			return fmt.Errorf("LZ4 data of %d bytes does not decode to the %d the page claims (%d, %v)", comp, uncomp, got, err)
		}
	}
	return nil
}

// ratio is how much a codec may expand a large page.
func ratio(codec format.CompressionCodec) int64 {
	switch codec {
	case format.Uncompressed:
		return 1
	case format.Snappy:
		return 32
	}
	return maxRatio
}

package parquet

import (
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/duskdata/dusk/io/files"
)

// window is the rows [from, to) of a row group that a read decodes.
type window struct{ from, to int }

// narrow bounds each row group's rows by the page indexes of the filters'
// columns, where the file has them: the rows before the first page and
// after the last page whose statistics some value passing the filter may
// lie in are not decoded in any column (a range of a sorted key, a day of
// events written in time order). A missing or damaged index narrows
// nothing: it only saves work.
func (rd *reading) narrow(filters []files.Filter) {
	meta := rd.file.file.Metadata()
	floats := floatBoundsRight(meta)
	windows := make([]window, len(rd.groups))
	narrowed := false
	for i, g := range rd.groups {
		windows[i] = window{0, int(meta.RowGroups[g].NumRows)}
		for _, flt := range filters {
			if flt.Stats == nil {
				continue
			}
			sel, err := rd.selectColumns([]string{flt.Column})
			if err != nil {
				continue // ReadWhere names it
			}
			c := sel[0]
			switch c.kind {
			case parquet.Int32, parquet.Int64, parquet.Float, parquet.Double:
			default:
				continue // a string's page bounds may be cut short
			}
			if w, ok := rd.pageWindow(g, c, floats, flt.Stats); ok {
				windows[i].from, windows[i].to = max(windows[i].from, w.from), min(windows[i].to, w.to)
				windows[i].to = max(windows[i].to, windows[i].from)
				narrowed = true
			}
		}
	}
	if !narrowed {
		return
	}
	rd.windows, rd.rows = windows, 0
	for _, w := range windows {
		rd.rows += w.to - w.from
	}
}

// pageWindow is the rows of row group g from the first page of c whose
// statistics may passes to the end of the last, by c's column index and
// the pages checkChunk walked; false where the file has no usable index.
func (rd *reading) pageWindow(g int, c *column, floats bool, may func(files.ColumnStats) bool) (window, bool) {
	cc := &rd.file.file.Metadata().RowGroups[g].Columns[c.leaf]
	if (c.kind == parquet.Float || c.kind == parquet.Double) && !c.stats(&cc.MetaData.Statistics, floats).HasMinMax {
		// A float chunk without bounds (Write leaves them out where a NaN
		// is among the values) has a column index all the same, whose
		// pages' bounds parquet-go fills with zeros: not to be trusted.
		return window{}, false
	}
	pages := rd.pages[[2]int{g, c.leaf}]
	var ci format.ColumnIndex
	if len(pages) == 0 || !readIndex(rd.r, rd.size, cc.ColumnIndexOffset, cc.ColumnIndexLength, &ci) {
		return window{}, false
	}
	n := len(pages)
	if len(ci.NullPages) != n || len(ci.MinValues) != n || len(ci.MaxValues) != n || len(ci.NullCounts) != 0 && len(ci.NullCounts) != n {
		return window{}, false
	}
	first, last := -1, -1
	for p := range n {
		s := files.ColumnStats{Nulls: 1} // unknown: may hold nulls
		if !ci.NullPages[p] {
			st := format.Statistics{MinValue: ci.MinValues[p], MaxValue: ci.MaxValues[p], NullCount: 1}
			if len(ci.NullCounts) == n {
				st.NullCount = ci.NullCounts[p]
			}
			s = c.stats(&st, floats)
		}
		if may(s) {
			if first < 0 {
				first = p
			}
			last = p
		}
	}
	if first < 0 {
		return window{}, true
	}
	to := int(rd.file.file.Metadata().RowGroups[g].NumRows)
	if last+1 < n {
		to = int(pages[last+1].row)
	}
	return window{int(pages[first].row), to}, true
}

// seekable lets a read of chunk start at a later page without decoding the
// pages before it, where the chunk's offset index agrees with the pages
// checkChunk walked (parquet-go then seeks by it); else the pages before
// are decoded and skipped.
func (rd *reading) seekable(g int, c *column, chunk parquet.ColumnChunk) {
	fc, ok := chunk.(*parquet.FileColumnChunk)
	cc := &rd.file.file.Metadata().RowGroups[g].Columns[c.leaf]
	var oi format.OffsetIndex
	if !ok || !readIndex(rd.r, rd.size, cc.OffsetIndexOffset, cc.OffsetIndexLength, &oi) {
		return
	}
	pages := rd.pages[[2]int{g, c.leaf}]
	if len(oi.PageLocations) != len(pages) {
		return
	}
	for i, p := range oi.PageLocations {
		if p.Offset != pages[i].offset || p.FirstRowIndex != pages[i].row {
			return
		}
	}
	fc.OffsetIndex() //nolint:errcheck // loads the index checked above
}

// maxIndex is the most bytes a page index of one column chunk is read in.
const maxIndex = 16 << 20

// readIndex decodes the page index structure at off, of n bytes, into v,
// walked first so that no count in it is taken on trust.
func readIndex(r io.ReaderAt, size, off int64, n int32, v any) (ok bool) {
	if off < 4 || n <= 0 || n > maxIndex || off > size-8 || int64(n) > size-8-off {
		return false
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, off); err != nil && err != io.EOF {
		return false
	}
	w := &thriftWalk{b: b}
	if err := w.structure(0); err != nil {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			ok = false
		}
	}()
	return thrift.Unmarshal(new(thrift.CompactProtocol), b, v) == nil
}

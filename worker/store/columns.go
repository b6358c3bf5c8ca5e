package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/cespare/xxhash/v2"

	"github.com/duskdata/dusk/internal/alloc"
	"github.com/duskdata/dusk/internal/codec"
)

// An Arrow record spills by column, so that a task that reads two of nine
// columns reads two back: each column is a one-column record of its own,
// in its own run of blocks (as in a DSK1 file, end marker included), and a
// footer says where each starts and how it is encoded (encoding.go):
//
//	"DSK2" | column* | footer | u32 footer len | u64 xxhash(footer) | "DSK2"
//	footer: u64 rows | u32 columns | entry*
//	entry: u16 name len | name | u8 encoding | u8 type ID | u64 base | u64 offset | u64 len
//
// Every one-column record carries the record's schema metadata.
const columnsMagic = "DSK2"

// trailerLen is the bytes after the footer.
const trailerLen = 4 + 8 + 4 // footer length, checksum, magic

// columnSection is one column's place in a DSK2 file and its encoding.
type columnSection struct {
	name string
	columnCode
	off, size int64
}

// entryLen is a footer entry's bytes besides its name.
const entryLen = 2 + 1 + 1 + 8 + 8 + 8

// writeColumns writes rec's columns to f, each compressed on its own, and
// returns the file's size.
func writeColumns(f *os.File, rec arrow.Record, comp Compression) (int64, error) {
	bw := &blockWriter{f: f, comp: comp, raw: make([]byte, 0, spillBlock)}
	if err := bw.write([]byte(columnsMagic)); err != nil {
		return 0, err
	}
	md := rec.Schema().Metadata()
	foot := binary.LittleEndian.AppendUint64(nil, uint64(rec.NumRows()))
	foot = binary.LittleEndian.AppendUint32(foot, uint32(rec.NumCols()))
	for i, col := range rec.Columns() {
		field := rec.Schema().Field(i)
		if len(field.Name) > 1<<16-1 {
			return 0, fmt.Errorf("%w: column name of %d bytes", errUnencodable, len(field.Name))
		}
		enc, code := encodeColumn(col)
		stored := arrow.Field{Name: field.Name, Type: enc.DataType(), Nullable: field.Nullable, Metadata: field.Metadata}
		one := array.NewRecord(arrow.NewSchema([]arrow.Field{stored}, &md), []arrow.Array{enc}, rec.NumRows())
		enc.Release()
		start := bw.size
		err := codec.ArrowWhole.Encode(bw, one)
		one.Release()
		if err != nil {
			if bw.err == nil {
				err = fmt.Errorf("%w: %w", errUnencodable, err)
			}
			return 0, err
		}
		if err := bw.close(); err != nil {
			return 0, err
		}
		foot = binary.LittleEndian.AppendUint16(foot, uint16(len(field.Name)))
		foot = append(foot, field.Name...)
		foot = append(foot, byte(code.enc), byte(code.typ))
		foot = binary.LittleEndian.AppendUint64(foot, code.base)
		foot = binary.LittleEndian.AppendUint64(foot, uint64(start))
		foot = binary.LittleEndian.AppendUint64(foot, uint64(bw.size-start))
	}
	trailer := binary.LittleEndian.AppendUint32(nil, uint32(len(foot)))
	trailer = binary.LittleEndian.AppendUint64(trailer, xxhash.Sum64(foot))
	trailer = append(trailer, columnsMagic...)
	if err := bw.write(append(foot, trailer...)); err != nil {
		return 0, err
	}
	return bw.size, nil
}

// readFooter reads and checks a DSK2 file's footer.
func readFooter(r io.ReaderAt, size int64) (rows int64, cols []columnSection, err error) {
	if size < int64(len(columnsMagic)+trailerLen) {
		return 0, nil, errors.New("too short for a footer")
	}
	var trailer [trailerLen]byte
	if _, err := r.ReadAt(trailer[:], size-trailerLen); err != nil {
		return 0, nil, fmt.Errorf("trailer: %w", noEOF(err))
	}
	if string(trailer[12:]) != columnsMagic {
		return 0, nil, errors.New("no trailer")
	}
	n := int64(binary.LittleEndian.Uint32(trailer[0:]))
	footStart := size - trailerLen - n
	if n < 12 || footStart < int64(len(columnsMagic)) {
		return 0, nil, fmt.Errorf("footer of %d bytes in a file of %d", n, size)
	}
	foot := make([]byte, n)
	if _, err := r.ReadAt(foot, footStart); err != nil {
		return 0, nil, fmt.Errorf("footer: %w", noEOF(err))
	}
	if xxhash.Sum64(foot) != binary.LittleEndian.Uint64(trailer[4:]) {
		return 0, nil, errors.New("footer checksum mismatch")
	}
	rows = int64(binary.LittleEndian.Uint64(foot))
	ncols := int(binary.LittleEndian.Uint32(foot[8:]))
	foot = foot[12:]
	if rows < 0 || ncols > len(foot)/entryLen {
		return 0, nil, fmt.Errorf("footer: %d rows, %d columns", rows, ncols)
	}
	cols = make([]columnSection, ncols)
	end := int64(len(columnsMagic))
	for i := range cols {
		if len(foot) < 2 {
			return 0, nil, errors.New("footer cut short")
		}
		l := int(binary.LittleEndian.Uint16(foot))
		if len(foot) < l+entryLen {
			return 0, nil, errors.New("footer cut short")
		}
		e := foot[2+l:]
		c := columnSection{name: string(foot[2 : 2+l]),
			columnCode: columnCode{encoding(e[0]), arrow.Type(e[1]), binary.LittleEndian.Uint64(e[2:])},
			off:        int64(binary.LittleEndian.Uint64(e[10:])),
			size:       int64(binary.LittleEndian.Uint64(e[18:]))}
		if c.off != end || c.size < headerLen || c.size > footStart-c.off {
			return 0, nil, fmt.Errorf("column %q at %d, %d bytes, in a file of %d", c.name, c.off, c.size, size)
		}
		end = c.off + c.size
		cols[i] = c
		foot = foot[l+entryLen:]
	}
	if end != footStart || len(foot) != 0 {
		return 0, nil, errors.New("footer does not match the columns")
	}
	return rows, cols, nil
}

// project returns the sections of the columns named, or all of them when
// a name is missing or names two columns: the reader then gets the whole
// record, and says what it lacks itself.
func project(sections []columnSection, names []string) []columnSection {
	want := make([]columnSection, 0, len(names))
	for _, name := range names {
		found := 0
		for _, s := range sections {
			if s.name == name {
				if found++; found == 1 {
					want = append(want, s)
				}
			}
		}
		if found != 1 {
			return sections
		}
	}
	return want
}

// readColumns reads back the columns named (all of them for nil) of a
// DSK2 file as one record, decoding no other column.
func readColumns(r io.ReaderAt, size int64, names []string) (arrow.Record, error) {
	rows, sections, err := readFooter(r, size)
	if err != nil {
		return nil, err
	}
	want := sections
	if names != nil {
		want = project(sections, names)
	}
	fields := make([]arrow.Field, len(want))
	arrs := make([]arrow.Array, len(want))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	var md arrow.Metadata
	var section []byte
	for i, s := range want {
		br := &blockReader{f: io.NewSectionReader(r, s.off, s.size)}
		if names != nil {
			// A column of a projection in one read: the disk sees one
			// request a column, and readSpill told the kernel not to read
			// ahead into the columns between. (A whole record streams
			// through, read ahead.)
			if int64(cap(section)) < s.size {
				section = alloc.NoZero(int(s.size))
			}
			section = section[:s.size]
			if _, err := r.ReadAt(section, s.off); err != nil {
				return nil, fmt.Errorf("column %q: %w", s.name, noEOF(err))
			}
			br = &blockReader{src: section}
		}
		v, err := codec.ArrowWhole.Decode(br)
		if err == nil {
			_, err = io.Copy(io.Discard, br) // to the end marker, checking blocks
		}
		one, ok := v.(arrow.Record)
		if err == nil && (!ok || one.NumCols() != 1 || one.NumRows() != rows || one.Schema().Field(0).Name != s.name) {
			err = errors.New("not the column the footer names")
		}
		if err != nil {
			if v != nil {
				if one, ok := v.(arrow.Record); ok {
					one.Release()
				}
			}
			return nil, fmt.Errorf("column %q: %w", s.name, err)
		}
		fields[i], md = one.Schema().Field(0), one.Schema().Metadata()
		arrs[i], err = decodeColumn(one.Column(0), s.columnCode)
		one.Release()
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", s.name, err)
		}
		fields[i].Type = arrs[i].DataType()
	}
	return array.NewRecord(arrow.NewSchema(fields, &md), arrs, rows), nil
}

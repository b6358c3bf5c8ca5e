package avro

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/internal/colbuild"
)

// Limits on what a file's framing may claim, so that a corrupt length
// fails at once instead of allocating.
const (
	maxBlockBytes = 1 << 31 // one block, compressed or not
	maxMetaBytes  = 64 << 20
	maxMetaKeys   = 1 << 16
)

var magic = [4]byte{'O', 'b', 'j', 1}

// Inspect reads only the header of the container file r: its schema, as
// Arrow (see ArrowSchema).
func Inspect(r io.Reader, path string) (s *arrow.Schema, err error) {
	defer recoverAs(&err, path)
	h, err := readHeader(bufio.NewReader(r))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	s, err = ArrowSchema(h.schema)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return s, nil
}

// Read decodes the whole container file r into one record with the file's
// fields, only those named in cols when cols is not nil (in the file's
// order). path names the file in errors: a corrupt or truncated file fails
// with the block or the record (counted from 0) that is wrong. The caller
// owns the record.
func Read(r io.Reader, path string, cols []string) (rec arrow.Record, err error) {
	defer recoverAs(&err, path)
	br := bufio.NewReaderSize(r, 64<<10)
	h, err := readHeader(br)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	fields, err := fieldsOf(h.schema)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	keep, err := projection(fields, cols)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	d := &decoder{fields: fields, cols: make([]*column, len(fields))}
	for i := range fields {
		if keep[i] {
			if fields[i].err != nil {
				return nil, fmt.Errorf("read %s: %w", path, fields[i].err)
			}
			d.cols[i] = newColumn(&fields[i])
		}
	}
	d.minBytes = minSize(h.schema, 0)
	dec, err := newDecompressor(h.codec)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer dec.close()
	var buf []byte
	for block := 0; ; block++ {
		first := d.rows
		fail := func(err error) error {
			return fmt.Errorf("read %s block %d (from record %d): %w", path, block, first, err)
		}
		count, err := readVarint(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fail(err)
		}
		size, err := readVarint(br)
		if err != nil {
			return nil, fail(noEOF(err))
		}
		if count < 0 || size < 0 || size > maxBlockBytes {
			return nil, fail(fmt.Errorf("a block of %d records in %d bytes: the file is corrupt", count, size))
		}
		if buf, err = readN(br, int(size), buf); err != nil {
			return nil, fail(noEOF(err))
		}
		var sync [16]byte
		if _, err := io.ReadFull(br, sync[:]); err != nil {
			return nil, fail(noEOF(err))
		}
		if sync != h.sync {
			return nil, fail(errors.New("the block's sync marker is not the header's: the file is corrupt"))
		}
		data, err := dec.decode(buf)
		if err != nil {
			return nil, fail(fmt.Errorf("%s: %w", h.codec, err))
		}
		if err := d.block(data, count); err != nil {
			var re *RecordError
			if errors.As(err, &re) {
				re.Path = path
				return nil, re
			}
			return nil, fail(err)
		}
	}
	return d.record(keep)
}

// recoverAs turns a panic (in hamba/avro, a codec, or this package) into
// the error of the call, with the stack.
func recoverAs(err *error, path string) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("read %s: panic: %v\n%s", path, p, debug.Stack())
	}
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func projection(fields []field, cols []string) ([]bool, error) {
	keep := make([]bool, len(fields))
	if cols == nil {
		for i := range keep {
			keep[i] = true
		}
		return keep, nil
	}
	for _, name := range cols {
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == name })
		if i < 0 {
			names := make([]string, len(fields))
			for j, f := range fields {
				names[j] = f.name
			}
			return nil, fmt.Errorf("column %q is not in the file; its columns are %q", name, names)
		}
		keep[i] = true
	}
	return keep, nil
}

// header is what a container file's header says.
type header struct {
	schema avro.Schema
	codec  string
	sync   [16]byte
}

func readHeader(r *bufio.Reader) (*header, error) {
	var m [4]byte
	if _, err := io.ReadFull(r, m[:]); err != nil || m != magic {
		return nil, errors.New("not an Avro object container file (it does not start with Obj\\x01)")
	}
	meta := map[string][]byte{}
	total := 0
	for {
		count, err := readVarint(r)
		if err != nil {
			return nil, fmt.Errorf("header: %w", noEOF(err))
		}
		if count == 0 {
			break
		}
		if count < 0 { // a block with its size in bytes
			count = -count
			if _, err := readVarint(r); err != nil {
				return nil, fmt.Errorf("header: %w", noEOF(err))
			}
		}
		if count > maxMetaKeys || len(meta)+int(count) > maxMetaKeys {
			return nil, fmt.Errorf("header: %d metadata entries: the file is corrupt", count)
		}
		for ; count > 0; count-- {
			k, err := readBytes(r, &total)
			if err != nil {
				return nil, fmt.Errorf("header: %w", err)
			}
			v, err := readBytes(r, &total)
			if err != nil {
				return nil, fmt.Errorf("header: %w", err)
			}
			meta[string(k)] = v
		}
	}
	h := &header{codec: string(meta["avro.codec"])}
	if _, err := io.ReadFull(r, h.sync[:]); err != nil {
		return nil, fmt.Errorf("header: %w", noEOF(err))
	}
	text, ok := meta["avro.schema"]
	if !ok {
		return nil, errors.New("header: no avro.schema")
	}
	schema, err := avro.ParseBytesWithCache(text, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("header: schema: %w", err)
	}
	h.schema = schema
	return h, nil
}

// readBytes reads a length-prefixed byte string of the header; total
// counts the header's bytes so far.
func readBytes(r *bufio.Reader, total *int) ([]byte, error) {
	n, err := readVarint(r)
	if err != nil {
		return nil, noEOF(err)
	}
	if n < 0 || int64(*total)+n > maxMetaBytes {
		return nil, fmt.Errorf("metadata of %d bytes: the file is corrupt", n)
	}
	*total += int(n)
	return readN(r, int(n), nil)
}

// readVarint reads a zigzag varint (Avro's int and long); io.EOF only when
// there is no byte at all.
func readVarint(r io.ByteReader) (int64, error) {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := r.ReadByte()
		if err != nil {
			if shift > 0 {
				return 0, noEOF(err)
			}
			return 0, err
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, errors.New("a varint longer than 10 bytes: the file is corrupt")
}

// readN reads n bytes into buf, growing it as the bytes arrive, so that a
// corrupt length in a short file does not allocate all of it.
func readN(r io.Reader, n int, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for len(buf) < n {
		chunk := min(n-len(buf), 16<<20)
		buf = slices.Grow(buf, chunk)
		k, err := io.ReadFull(r, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+k]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// decompressor undoes a block's codec.
type decompressor struct {
	codec string
	zstd  *zstd.Decoder
	flate io.ReadCloser
	out   []byte
}

func newDecompressor(codec string) (*decompressor, error) {
	switch codec {
	case "", "null", "deflate", "snappy":
		return &decompressor{codec: codec}, nil
	case "zstandard":
		z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBlockBytes))
		if err != nil {
			return nil, err
		}
		return &decompressor{codec: codec, zstd: z}, nil
	}
	return nil, fmt.Errorf("codec %q is not supported (null, deflate, snappy, zstandard)", codec)
}

// decode returns the block's bytes; they are valid until the next call.
func (d *decompressor) decode(b []byte) ([]byte, error) {
	var err error
	switch d.codec {
	case "deflate":
		if d.flate == nil {
			d.flate = flate.NewReader(bytes.NewReader(b))
		} else if err = d.flate.(flate.Resetter).Reset(bytes.NewReader(b), nil); err != nil {
			return nil, err
		}
		out := bytes.NewBuffer(d.out[:0])
		_, err = io.Copy(out, io.LimitReader(d.flate, maxBlockBytes+1))
		d.out = out.Bytes()
		if err == nil && len(d.out) > maxBlockBytes {
			err = errors.New("a block inflates beyond 2 GiB")
		}
		return d.out, err
	case "snappy":
		// The decoder allocates the length the data claims (up to 4 GiB)
		// before decoding: hold it to what snappy can expand to.
		if n, err := snappy.DecodedLen(b[:max(0, len(b)-4)]); err == nil && n > 32*len(b)+64 {
			return nil, fmt.Errorf("snappy data of %d bytes claims %d decoded", len(b), n)
		}
		return (&ocf.SnappyCodec{}).Decode(b)
	case "zstandard":
		d.out, err = d.zstd.DecodeAll(b, d.out[:0])
		return d.out, err
	}
	return b, nil
}

func (d *decompressor) close() {
	if d.zstd != nil {
		d.zstd.Close()
	}
	if d.flate != nil {
		d.flate.Close()
	}
}

// minSize is the fewest bytes a value of schema s takes (records of
// recursive types count their own fields once).
func minSize(s avro.Schema, depth int) int {
	if depth > 64 {
		return 0
	}
	switch t := s.(type) {
	case *avro.RefSchema:
		return minSize(t.Schema(), depth+1)
	case *avro.NullSchema:
		return 0
	case *avro.FixedSchema:
		return t.Size()
	case *avro.RecordSchema:
		n := 0
		for _, f := range t.Fields() {
			n += minSize(f.Type(), depth+1)
		}
		return n
	}
	switch s.Type() {
	case avro.Float:
		return 4
	case avro.Double:
		return 8
	}
	return 1 // a varint, a length, a count, a union index, a bool
}

// column is one field's values being decoded.
type column struct {
	f       *field
	ints    []int64
	floats  []float64
	bools   []uint8
	offsets []int32 // plain strings: len rows+1; dictionary: the values'
	data    []byte
	indices []int32          // dictionary and enum strings: row -> value
	ids     map[string]int32 // dictionary strings: value -> id
	nulls   []int32
}

func newColumn(f *field) *column {
	c := &column{f: f}
	switch {
	case f.kind == kEnum:
	case f.typ == kernel.Dict:
		c.offsets, c.ids = []int32{0}, map[string]int32{}
	case f.typ == kernel.String || f.typ.ID() == arrow.DECIMAL128:
		c.offsets = []int32{0}
	}
	return c
}

// decoder decodes the records of a file's blocks into columns.
type decoder struct {
	fields   []field
	cols     []*column // nil for the fields skipped
	minBytes int       // the fewest bytes a record takes
	rows     int
	b        []byte // the block being decoded
	pos      int
}

// RecordError is a value that could not be decoded: the file, the
// record's number from 0, and the field.
type RecordError struct {
	Path   string
	Record int
	Field  string // "" where the record as a whole failed
	Err    error
}

func (e *RecordError) Error() string {
	field := ""
	if e.Field != "" {
		field = " field " + e.Field
	}
	return fmt.Sprintf("read %s record %d%s: %v", e.Path, e.Record, field, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

var (
	errTruncated = errors.New("the value runs past the end of its block")
	errVarint    = errors.New("a varint longer than its type allows")
)

// block decodes count records from the block b.
func (d *decoder) block(b []byte, count int64) error {
	if d.minBytes > 0 && count > int64(len(b))/int64(d.minBytes) {
		return fmt.Errorf("%d records cannot fit in %d bytes: the file is corrupt", count, len(b))
	}
	if count > int64(math.MaxInt32-d.rows) {
		return fmt.Errorf("more than 2^31-1 records: read the file in parts")
	}
	n := int(count)
	for _, c := range d.cols {
		if c != nil {
			c.grow(n)
		}
	}
	d.b, d.pos = b, 0
	if d.minBytes == 0 { // records of nothing but nulls: no bytes to read
		if len(b) != 0 {
			return fmt.Errorf("%d bytes in a block of records that take none: the file is corrupt", len(b))
		}
		d.rows += n
		return nil
	}
	for r := 0; r < n; r++ {
		for i := range d.fields {
			var err error
			if c := d.cols[i]; c != nil {
				err = d.value(c)
			} else {
				err = d.skip(d.fields[i].schema, 0)
			}
			if err != nil {
				return &RecordError{Record: d.rows, Field: d.fields[i].name, Err: err}
			}
		}
		d.rows++
	}
	if d.pos != len(b) {
		return fmt.Errorf("%d bytes left over after its %d records: the file is corrupt or its schema wrong", len(b)-d.pos, n)
	}
	return nil
}

func (c *column) grow(n int) {
	switch {
	case c.f.kind == kLong || c.f.kind == kInt:
		c.ints = slices.Grow(c.ints, n)
	case c.f.kind == kDouble || c.f.kind == kFloat:
		c.floats = slices.Grow(c.floats, n)
	case c.f.kind == kBool:
		c.bools = slices.Grow(c.bools, n)
	case c.f.kind == kEnum || c.f.typ == kernel.Dict:
		c.indices = slices.Grow(c.indices, n)
	default:
		c.offsets = slices.Grow(c.offsets, n)
	}
}

// value decodes one field's value into c.
func (d *decoder) value(c *column) error {
	f := c.f
	if f.union {
		br, err := d.long()
		if err != nil {
			return err
		}
		if br == f.nullIdx {
			c.appendNull(d.rows)
			return nil
		}
		if br != f.valIdx {
			return fmt.Errorf("union branch %d, but the union has %d", br, max(f.nullIdx, f.valIdx)+1)
		}
	}
	switch f.kind {
	case kNull:
		c.appendNull(d.rows)
	case kLong:
		v, err := d.long()
		c.ints = append(c.ints, v)
		return err
	case kInt:
		v, err := d.int()
		c.ints = append(c.ints, v)
		return err
	case kDouble:
		if len(d.b)-d.pos < 8 {
			return errTruncated
		}
		c.floats = append(c.floats, math.Float64frombits(le64(d.b[d.pos:])))
		d.pos += 8
	case kFloat:
		if len(d.b)-d.pos < 4 {
			return errTruncated
		}
		c.floats = append(c.floats, float64(math.Float32frombits(le32(d.b[d.pos:]))))
		d.pos += 4
	case kBool:
		if d.pos >= len(d.b) {
			return errTruncated
		}
		v := d.b[d.pos]
		if v > 1 {
			return fmt.Errorf("a boolean byte of %d", v)
		}
		c.bools = append(c.bools, v)
		d.pos++
	case kEnum:
		v, err := d.int()
		if err != nil {
			return err
		}
		if v < 0 || v >= int64(len(f.symbols)) {
			return fmt.Errorf("enum index %d, but the enum has %d symbols", v, len(f.symbols))
		}
		c.indices = append(c.indices, int32(v))
	default: // kString, kBytes
		v, err := d.bytes()
		if err != nil {
			return err
		}
		if f.typ.ID() == arrow.DECIMAL128 {
			if len(v) > 16 {
				return fmt.Errorf("a decimal of %d bytes: at most 16 fit %s", len(v), f.typ)
			}
			return c.appendString(v) // its bytes, turned into decimals at the end
		}
		if f.kind == kBytes && !utf8.Valid(v) {
			return errors.New("bytes that are not UTF-8 text")
		}
		return c.appendString(v)
	}
	return nil
}

var errTooLarge = errors.New("more than 2 GiB of strings in one column: read the file in parts")

func (c *column) appendString(v []byte) error {
	if len(c.data)+len(v) > math.MaxInt32 {
		return errTooLarge
	}
	if c.ids == nil {
		c.data = append(c.data, v...)
		c.offsets = append(c.offsets, int32(len(c.data)))
		return nil
	}
	id, ok := c.ids[string(v)]
	if !ok {
		id = int32(len(c.offsets) - 1)
		c.data = append(c.data, v...)
		c.offsets = append(c.offsets, int32(len(c.data)))
		c.ids[string(v)] = id
	}
	c.indices = append(c.indices, id)
	return nil
}

func (c *column) appendNull(row int) {
	c.nulls = append(c.nulls, int32(row))
	switch {
	case c.f.kind == kNull:
	case c.f.kind == kLong || c.f.kind == kInt:
		c.ints = append(c.ints, 0)
	case c.f.kind == kDouble || c.f.kind == kFloat:
		c.floats = append(c.floats, math.NaN())
	case c.f.kind == kBool:
		c.bools = append(c.bools, 0)
	case c.f.kind == kEnum || c.ids != nil:
		c.indices = append(c.indices, 0)
	default:
		c.offsets = append(c.offsets, int32(len(c.data)))
	}
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func le32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// long decodes a zigzag varint of up to 10 bytes.
func (d *decoder) long() (int64, error) {
	var u uint64
	b, i := d.b, d.pos
	for shift := uint(0); shift < 70; shift += 7 {
		if i >= len(b) {
			return 0, errTruncated
		}
		c := b[i]
		i++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			d.pos = i
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, errVarint
}

// int decodes a zigzag varint of up to 5 bytes that fits an int32.
func (d *decoder) int() (int64, error) {
	start := d.pos
	v, err := d.long()
	if err == nil && (d.pos-start > 5 || v != int64(int32(v))) {
		return 0, errVarint
	}
	return v, err
}

// bytes decodes a length-prefixed byte string; the bytes are the block's.
func (d *decoder) bytes() ([]byte, error) {
	n, err := d.long()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("a negative length (%d)", n)
	}
	if n > int64(len(d.b)-d.pos) {
		return nil, errTruncated
	}
	v := d.b[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return v, nil
}

// maxSkipDepth bounds the nesting of the values skipped (recursive types).
const maxSkipDepth = 1000

// skip steps over a value of schema s, checking only its framing.
func (d *decoder) skip(s avro.Schema, depth int) error {
	if depth > maxSkipDepth {
		return fmt.Errorf("values nested more than %d deep", maxSkipDepth)
	}
	switch t := s.(type) {
	case *avro.RefSchema:
		return d.skip(t.Schema(), depth+1)
	case *avro.RecordSchema:
		for _, f := range t.Fields() {
			if err := d.skip(f.Type(), depth+1); err != nil {
				return err
			}
		}
		return nil
	case *avro.UnionSchema:
		br, err := d.long()
		if err != nil {
			return err
		}
		if br < 0 || br >= int64(len(t.Types())) {
			return fmt.Errorf("union branch %d, but the union has %d", br, len(t.Types()))
		}
		return d.skip(t.Types()[br], depth+1)
	case *avro.FixedSchema:
		return d.skipN(int64(t.Size()))
	case *avro.ArraySchema:
		return d.skipBlocks(func() error { return d.skip(t.Items(), depth+1) }, minSize(t.Items(), 0))
	case *avro.MapSchema:
		return d.skipBlocks(func() error {
			if _, err := d.bytes(); err != nil {
				return err
			}
			return d.skip(t.Values(), depth+1)
		}, 1)
	}
	switch s.Type() {
	case avro.Null:
		return nil
	case avro.Boolean:
		return d.skipN(1)
	case avro.Int, avro.Long, avro.Enum:
		_, err := d.long()
		return err
	case avro.Float:
		return d.skipN(4)
	case avro.Double:
		return d.skipN(8)
	case avro.String, avro.Bytes:
		_, err := d.bytes()
		return err
	}
	return fmt.Errorf("cannot skip a value of type %s", s.Type())
}

func (d *decoder) skipN(n int64) error {
	if n > int64(len(d.b)-d.pos) {
		return errTruncated
	}
	d.pos += int(n)
	return nil
}

// skipBlocks steps over the blocks of an array or a map, whose items take
// at least itemBytes each.
func (d *decoder) skipBlocks(item func() error, itemBytes int) error {
	for {
		count, err := d.long()
		if err != nil {
			return err
		}
		if count == 0 {
			return nil
		}
		if count < 0 { // the block's size in bytes follows: skip it whole
			size, err := d.long()
			if err != nil {
				return err
			}
			if size < 0 {
				return fmt.Errorf("a negative block size (%d)", size)
			}
			if err := d.skipN(size); err != nil {
				return err
			}
			continue
		}
		if itemBytes == 0 {
			continue // items of no bytes: nothing to step over
		}
		if count > int64(len(d.b)-d.pos)/int64(itemBytes) {
			return errTruncated
		}
		for ; count > 0; count-- {
			if err := item(); err != nil {
				return err
			}
		}
	}
}

// record wraps the columns kept as a record.
func (d *decoder) record(keep []bool) (arrow.Record, error) {
	var fields []arrow.Field
	var arrs []arrow.Array
	for i, c := range d.cols {
		if !keep[i] {
			continue
		}
		a := c.finish(d.rows)
		arrs = append(arrs, a)
		fields = append(fields, arrow.Field{Name: c.f.name, Type: c.f.typ, Nullable: true})
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), arrs, int64(d.rows))
	for _, a := range arrs {
		a.Release()
	}
	return rec, nil
}

func (c *column) finish(rows int) arrow.Array {
	valid := colbuild.Validity(c.nulls, rows)
	switch {
	case c.f.kind == kNull:
		return array.NewNull(rows)
	case c.f.kind == kLong || c.f.kind == kInt: // int64, or a date or timestamp
		col, _ := kernel.FromInt64(c.f.typ, c.ints, valid)
		return col
	case c.f.kind == kDouble || c.f.kind == kFloat:
		return kernel.NewFloat64(c.floats, valid)
	case c.f.kind == kBool:
		return kernel.NewBool(c.bools, valid)
	case c.f.kind == kEnum:
		offsets := make([]int32, 1, len(c.f.symbols)+1)
		var data []byte
		for _, s := range c.f.symbols {
			data = append(data, s...)
			offsets = append(offsets, int32(len(data)))
		}
		values := kernel.NewString(offsets, data, nil)
		defer values.Release()
		return kernel.NewDict(c.indices, values, valid)
	case c.ids != nil:
		values := kernel.NewString(c.offsets, c.data, nil)
		defer values.Release()
		return kernel.NewDict(c.indices, values, valid)
	case c.f.typ.ID() == arrow.DECIMAL128:
		vals := make([]decimal128.Num, len(c.offsets)-1)
		for i := range vals {
			vals[i] = kernel.DecimalFromBigEndian(c.data[c.offsets[i]:c.offsets[i+1]])
		}
		return kernel.NewFixed(c.f.typ, vals, valid)
	}
	return kernel.NewString(c.offsets, c.data, valid)
}

package csv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/internal/colbuild"
	"github.com/duskdata/dusk/io/internal/strdict"
)

// Parse parses the lines of data (no header) into a record with schema's
// columns. Errors are *ParseError with lines counted from 1 at data's start.
func Parse(data []byte, schema Schema, opts Options) (arrow.Record, error) {
	opts, err := opts.WithDefaults()
	if err != nil {
		return nil, err
	}
	p := newParser(data, opts.Delimiter, opts.Terminator)
	p.nulls = newNullSet(opts.NullValues)
	// Every row ends with a line break (\n, \r\n or a lone \r, or the
	// terminator) but perhaps the last: an upper bound that sizes the
	// columns once.
	rows := bytes.Count(data, []byte{p.nl}) + 1
	if p.cr != p.nl {
		if cr := bytes.Count(data, []byte{p.cr}); cr > 0 {
			rows += cr - bytes.Count(data, []byte{p.cr, p.nl})
		}
	}
	keep := func(string) bool { return true }
	if opts.Columns != nil {
		keep = func(name string) bool { return slices.Contains(opts.Columns, name) }
	}
	p.cols = make([]column, len(schema))
	chunkRows := max(1, chunkFields/max(1, len(schema)))
	p.starts, p.ends = make([]int, chunkRows*len(schema)), make([]int, chunkRows*len(schema))
	p.keys = make([]strdict.Key, chunkRows)
	for i, c := range schema {
		col := &p.cols[i]
		col.Kind = c.Type
		if !keep(c.Name) {
			col.Kind = skipped
			continue
		}
		if !c.Type.Scanned() { // read as text, converted at the end
			col.Kind = String
		}
		col.code = codeOf[col.Kind]
		if !col.Make(rows) {
			col.strs = newStringColumn(rows, c.Dictionary && !opts.NoDictionary && c.Type.Scanned())
		}
	}
	p.names = schema.Names()
	if err := p.run(); err != nil {
		return nil, err
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for i := range p.cols {
		if p.cols[i].Kind == skipped {
			continue
		}
		c := p.cols[i].finish(p.rows)
		if to, ok := schema[i].Type.Logical(); ok {
			layout := "" // ISO 8601 where Infer found the type
			if _, given := opts.Types[schema[i].Name]; given {
				layout = opts.TimeLayout
			}
			typed, err := kernel.ParseText(c, to, layout, true)
			c.Release()
			if err != nil {
				for _, c := range cols {
					c.Release()
				}
				var pe *kernel.ParseError
				if errors.As(err, &pe) {
					return nil, &ParseError{Line: pe.Row + 1, Column: schema[i].Name, Msg: strings.TrimPrefix(pe.Error(), fmt.Sprintf("row %d: ", pe.Row))}
				}
				return nil, fmt.Errorf("column %s: %w", schema[i].Name, err)
			}
			c = typed
		}
		cols = append(cols, c)
		fields = append(fields, arrow.Field{Name: schema[i].Name, Type: c.DataType(), Nullable: true})
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(p.rows))
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

type parser struct {
	data    []byte
	pos     int
	delim   byte
	nl, cr  byte      // what ends a line: \n, \r\n or \r; or the terminator, twice
	term    [256]bool // bytes that end a field: the delimiter and line breaks
	special [256]bool // term and the quote
	line    int       // line of the row being parsed
	rows    int
	cols    []column
	names   []string // the columns', for errors
	nulls   nullSet
	scratch []byte

	// Where fields end: the bitmap of special bytes, m and wb its bits
	// past the fields parsed (see bitsFrom), the bounds of the chunk's
	// fields that split found (quotes left out), and where the row after
	// them starts (next).
	specials     specials
	m            uint64
	wb           int
	starts, ends []int
	next         int
	keys         []strdict.Key // a dictionary column's, in the chunk
}

// newParser parses data; a terminator other than 0 alone ends lines, as
// both nl and cr, so that the line-break logic needs no other case (two
// terminators in a row read as a line and a blank line, which is skipped).
func newParser(data []byte, delim, terminator byte) *parser {
	p := &parser{data: data, delim: delim, line: 1, nl: '\n', cr: '\r'}
	if terminator != 0 {
		p.nl, p.cr = terminator, terminator
	}
	p.term[p.nl], p.term[p.cr], p.term[delim] = true, true, true
	p.special = p.term
	p.special['"'] = true
	p.specials.delims = uint64(delim) * lowBits
	p.specials.nl, p.specials.cr = uint64(p.nl)*lowBits, uint64(p.cr)*lowBits
	return p
}

// skipped is the kind of a column left out by Options.Columns: its fields
// are stepped over.
const skipped Type = "skip"

// column is one column being built; a string column keeps its values in
// strs.
type column struct {
	colbuild.Values
	code kind // Kind as a small integer, which the row loop switches on
	strs *stringColumn
}

// kind numbers the column types for the row loop, where a switch on the
// Type strings would compare them for every field.
type kind uint8

const (
	skipKind kind = iota
	intKind
	floatKind
	stringKind
	boolKind
)

var codeOf = map[Type]kind{Int64: intKind, Float64: floatKind, String: stringKind, Bool: boolKind}

func (c *column) finish(rows int) arrow.Array {
	valid := colbuild.Validity(c.Nulls, rows)
	if c.strs != nil {
		return c.strs.finish(rows, valid)
	}
	return c.Array(rows, valid)
}

// run parses the rows from p.pos: regular rows a chunk at a time (split,
// then chunk), any other row alone (row).
func (p *parser) run() error {
	p.m, p.wb = p.bitsFrom(p.pos)
	slow := 1 // rows for the row parser after a row split could not take
	for p.pos < len(p.data) {
		if rows := p.split(); rows > 0 {
			slow = 1
			if err := p.chunk(rows); err != nil {
				return err
			}
			continue
		}
		// Where rows are irregular, they tend to be so in runs (a text
		// column with doubled quotes throughout): the more in a row, the
		// more taken without trying split first.
		for i := 0; i < slow && p.pos < len(p.data); i++ {
			if err := p.row(); err != nil {
				return err
			}
		}
		slow = min(2*slow, 64)
		for i := range p.cols {
			if c := p.cols[i].strs; c != nil {
				c.flush()
			}
		}
	}
	return nil
}

// chunkFields is about how many fields a chunk holds: their ends stay in
// the L1 cache while each column is parsed.
const chunkFields = 1024

// split finds the bounds of the fields of up to a chunk of regular rows
// from p.pos and returns how many rows it found: none when the row at
// p.pos is not regular. A regular row has as many fields as columns, each
// plain or in quotes with no line break or doubled quote inside (quoted8),
// and ends in a line break like the chunk's others, \n, \r\n or \r. The work
// per plain field is the next bit of the bitmap, two stores and a check of
// the byte that ends it, which regular rows always pass: no branch depends
// on the field's own bytes.
func (p *parser) split() int {
	d, n, cols := p.data, len(p.data), len(p.cols)
	delim := p.delim
	m, wb := p.m, p.wb
	starts, ends := p.starts, p.ends
	pos := p.pos
	k, crlf := 0, -1 // crlf: the chunk's line break (0 \n, 1 \r\n, 2 \r), unknown until its first row
	nl, cr := p.nl, p.cr
	for k+cols <= len(starts) && pos < n && d[pos] != nl && d[pos] != cr {
		row := pos
		bad := false
		b := delim // the byte that ended the field before
		for c := k; c < k+cols; c++ {
			if b != delim { // the row ended early
				bad = true
				break
			}
			var e int
			e, m, wb = p.take(m, wb)
			if e >= n {
				bad = true
				break
			}
			starts[c], ends[c] = pos, e
			if b = d[e]; b == '"' { // quoted: the closing quote is next, then the field's end
				p.m, p.wb = m, wb
				e = p.quoted8(pos, e)
				m, wb = p.m, p.wb
				if e < 0 {
					bad = true
					break
				}
				starts[c], ends[c], b = pos+1, e-1, d[e]
			}
			pos = e + 1
		}
		ok := !bad
		switch {
		case !ok:
		case b == nl:
			ok = crlf == -1 || crlf == 0
			crlf = 0
		case b == cr && pos < n && d[pos] == nl:
			_, m, wb = p.take(m, wb) // the \n
			ok = crlf == -1 || crlf == 1
			crlf = 1
			pos++
		case b == cr: // a lone \r, as old Macs and some spreadsheets end lines
			ok = crlf == -1 || crlf == 2
			crlf = 2
		default: // too many fields
			ok = false
		}
		if !ok { // the row parser takes this row
			m, wb = p.bitsFrom(row)
			pos = row
			break
		}
		k += cols
	}
	p.m, p.wb, p.next = m, wb, pos
	return k / cols
}

// take returns the index of the next special byte in bits m of the word
// at byte wb or the words after, and the bits after it.
func (p *parser) take(m uint64, wb int) (int, uint64, int) {
	if m == 0 {
		m, wb = p.nextBits(wb)
	}
	return wb + bits.TrailingZeros64(m), m & (m - 1), wb
}

// nextBits returns the first word after the one at byte wb that holds a
// special byte, and its first byte's index (see nextWord).
func (p *parser) nextBits(wb int) (uint64, int) {
	m, wb := p.nextWord(wb)
	for m == 0 {
		m, wb = p.nextWord(wb)
	}
	return m, wb
}

// quoted8 steps over the quoted field that starts at s, whose first
// special byte, at e, is its opening quote: the bits up to the closing
// quote, delimiters among them, and the one right after it, which ends the
// field. It returns that end, or -1 for what the row parser handles: a
// quote not at the field's start, a doubled quote, a line break in the
// quotes, the data's end.
func (p *parser) quoted8(s, e int) int {
	d, n := p.data, len(p.data)
	if e != s {
		return -1
	}
	m, wb := p.m, p.wb
	defer func() { p.m, p.wb = m, wb }()
	for {
		var q int
		q, m, wb = p.take(m, wb)
		if q >= n || d[q] == p.nl || d[q] == p.cr {
			return -1
		}
		if d[q] != '"' {
			continue // a delimiter inside the quotes
		}
		e, m, wb = p.take(m, wb)
		if e != q+1 || e >= n || d[e] == '"' {
			return -1
		}
		return e
	}
}

// chunk parses the rows that split found, a column at a time: each in its
// own typed loop, where a switch on the column's type for every field
// mispredicted from one column to the next, and in its own small function,
// whose values stay in registers. Field c of row r is
// p.data[p.starts[k]:p.ends[k]], k = r*len(p.cols)+c. Of the errors, it
// returns the first in row order, as the row parser would.
func (p *parser) chunk(rows int) error {
	failed, failure := rows, error(nil)
	for c := range p.cols {
		col := &p.cols[c]
		r, err := rows, error(nil)
		switch col.code {
		case intKind:
			r, err = p.intFields(col, c, rows)
		case floatKind:
			r, err = p.floatFields(col, c, rows)
		case stringKind:
			p.stringFields(col, c, rows)
		case boolKind:
			r, err = p.boolFields(col, c, rows)
		}
		if err != nil && r < failed {
			failed, failure = r, p.withColumn(err, c)
		}
	}
	if failure != nil {
		return failure
	}
	p.pos, p.rows, p.line = p.next, p.rows+rows, p.line+rows
	return nil
}

// intFields parses the chunk's fields of integer column c, those of up to
// eight digits at once (digits8). It returns the first row that fails and
// its error.
func (p *parser) intFields(col *column, c, rows int) (int, error) {
	d, cols, starts, ends := p.data, len(p.cols), p.starts, p.ends
	ints := col.Ints[p.rows : p.rows+rows]
	for r, k := 0, c; r < len(ints); r, k = r+1, k+cols {
		s, e := starts[k], ends[k]
		if n := e - s; uint(n-1) < 8 && e >= 8 {
			if v, ok := digits8(d, e, n); ok {
				ints[r] = int64(v)
				continue
			}
		}
		if err := p.setInt(col, p.rows+r, p.line+r, d[s:e]); err != nil {
			return r, err
		}
	}
	return rows, nil
}

// floatFields parses the chunk's fields of float column c, like intFields.
func (p *parser) floatFields(col *column, c, rows int) (int, error) {
	d, cols, starts, ends := p.data, len(p.cols), p.starts, p.ends
	floats := col.Floats[p.rows : p.rows+rows]
	for r, k := 0, c; r < len(floats); r, k = r+1, k+cols {
		s, e := starts[k], ends[k]
		if v, ok := atof(d, s, e); ok {
			floats[r] = v
			continue
		}
		if err := p.setFloat(col, p.rows+r, p.line+r, d[s:e]); err != nil {
			return r, err
		}
	}
	return rows, nil
}

// boolFields parses the chunk's fields of bool column c, like intFields.
func (p *parser) boolFields(col *column, c, rows int) (int, error) {
	for r, k, cols := 0, c, len(p.cols); r < rows; r, k = r+1, k+cols {
		if err := p.setBool(col, p.rows+r, p.line+r, p.data[p.starts[k]:p.ends[k]]); err != nil {
			return r, err
		}
	}
	return rows, nil
}

// stringFields adds the chunk's fields of string column c: plain
// (plainStrings), or short dictionary keys looked up as a batch
// (shortKeys), or else one by one.
func (p *parser) stringFields(col *column, c, rows int) {
	switch {
	case col.strs.plain:
		p.plainStrings(col, c, rows)
	case p.shortKeys(c, rows):
		col.strs.addKeys(p.rows, p.keys[:rows])
	default:
		for r, k, cols := 0, c, len(p.cols); r < rows; r, k = r+1, k+cols {
			p.setString(col, p.rows+r, p.data[p.starts[k]:p.ends[k]])
		}
		col.strs.flush()
	}
}

// plainStrings appends the chunk's fields of column c, whose strings are
// kept plain; a null, and the row after which the column sizes its bytes,
// go through setString.
func (p *parser) plainStrings(col *column, c, rows int) {
	d, cols, starts, ends, sc := p.data, len(p.cols), p.starts, p.ends, col.strs
	data, offsets := sc.data, sc.offsets // in registers, not stored back per row
	for r, k := 0, c; r < rows; r, k = r+1, k+cols {
		f := d[starts[k]:ends[k]]
		if p.nulls.match(f) || len(offsets) == sizeRows {
			sc.data, sc.offsets = data, offsets
			p.setString(col, p.rows+r, f)
			data, offsets = sc.data, sc.offsets
			continue
		}
		data = append(data, f...)
		offsets = append(offsets, int32(len(data)))
	}
	sc.data, sc.offsets = data, offsets
}

// shortKeys packs the fields of column c in the chunk's rows into
// p.keys, and reports whether every one is short and not null, as is
// common in a dictionary column; if not, setString takes them one by one.
func (p *parser) shortKeys(c, rows int) bool {
	d, cols, starts, ends, keys := p.data, len(p.cols), p.starts, p.ends, p.keys[:rows]
	for r, k := 0, c; r < len(keys); r, k = r+1, k+cols {
		f := d[starts[k]:ends[k]]
		if len(f) > strdict.MaxShort || p.nulls.match(f) {
			return false
		}
		keys[r] = strdict.Pack(f)
	}
	return true
}

// row parses the row at p.pos, one field after another, quoted or not,
// or steps over a blank line; it reports a wrong count of fields. An
// unquoted field ends at the next bit of the bitmap, as in split; a quoted
// one is read byte by byte (quoted), and the bits taken again after it.
func (p *parser) row() error {
	d, n, last := p.data, len(p.data), len(p.cols)-1
	m, wb := p.m, p.wb // the special bytes from p.pos on
	defer func() { p.m, p.wb = m, wb }()
	if c := d[p.pos]; c == p.nl || c == p.cr { // a blank line
		p.endLine()
		m, wb = p.bitsFrom(p.pos)
		return nil
	}
	for c := range p.cols {
		col := &p.cols[c]
		s := p.pos
		var f []byte
		if s < n && d[s] == '"' {
			var err error
			if f, err = p.quoted(); err != nil {
				return p.withColumn(err, c)
			}
			m, wb = p.bitsFrom(p.pos)
		} else {
			if m == 0 {
				m, wb = p.nextBits(wb)
			}
			e := wb + bits.TrailingZeros64(m) // taken after the delimiter check
			if e < n && d[e] == '"' {
				return p.withColumn(&ParseError{Line: p.line, Msg: "a quote inside an unquoted field"}, c)
			}
			f, p.pos = d[s:e], e
		}
		// An unquoted number is read in place, where the word-at-a-time
		// paths can load the bytes before it.
		inPlace := s < n && d[s] != '"'
		var err error
		switch col.code {
		case intKind:
			if v, ok := atoi(d, s, p.pos); ok && inPlace {
				col.Ints[p.rows] = v
				break
			}
			err = p.setInt(col, p.rows, p.line, f)
		case floatKind:
			if v, ok := atof(d, s, p.pos); ok && inPlace {
				col.Floats[p.rows] = v
				break
			}
			err = p.setFloat(col, p.rows, p.line, f)
		case stringKind:
			p.setString(col, p.rows, f)
		case boolKind:
			err = p.setBool(col, p.rows, p.line, f)
		}
		if err != nil {
			return p.withColumn(err, c)
		}
		if c == last {
			break
		}
		if p.pos >= n || d[p.pos] != p.delim {
			return &ParseError{Line: p.line, Msg: fmt.Sprintf("expected %d fields, found %d", len(p.cols), c+1)}
		}
		m &= m - 1 // the delimiter
		p.pos++
	}
	if p.pos < n {
		switch c := d[p.pos]; {
		case c == p.nl:
			m &= m - 1
			p.pos++
			p.line++
		case c == p.cr:
			p.endLine()
			m, wb = p.bitsFrom(p.pos)
		case c == p.delim:
			return &ParseError{Line: p.line, Msg: fmt.Sprintf("expected %d fields, found more", len(p.cols))}
		default:
			return &ParseError{Line: p.line, Msg: fmt.Sprintf("unexpected %q after the last field", c)}
		}
	}
	p.rows++
	return nil
}

// withColumn names column c in a ParseError about one of its fields.
func (p *parser) withColumn(err error, c int) error {
	if pe, ok := err.(*ParseError); ok && pe.Column == "" {
		pe.Column = p.names[c]
	}
	return err
}

// atoi converts the plain integer d[s:e], a sign and up to 18 digits; ok
// is false for anything else, which the slow path parses or rejects.
func atoi(d []byte, s, e int) (int64, bool) {
	neg := false
	if s < e && (d[s] == '-' || d[s] == '+') {
		neg = d[s] == '-'
		s++
	}
	var v uint64
	switch n := e - s; {
	case n <= 0:
		return 0, false
	case n <= 8 && e >= 8:
		x, ok := digits8(d, e, n)
		if !ok {
			return 0, false
		}
		v = x
	case n <= 16 && e >= 16:
		hi, ok1 := digits8(d, e-8, n-8)
		lo, ok2 := digits8(d, e, 8)
		if !ok1 || !ok2 {
			return 0, false
		}
		v = hi*1e8 + lo
	default:
		x, i := colbuild.Digits(d, s, 0)
		if i != e || n > 18 {
			return 0, false
		}
		v = x
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// atof converts the plain decimal d[s:e], a sign, digits, perhaps a point
// and more digits, at most 15 in all. Such digits fit float64's 53 bits
// and the power of ten is exact, so one division rounds correctly
// (Clinger's fast path); ok is false for anything else (exponents, longer
// numbers, nulls).
func atof(d []byte, s, e int) (float64, bool) {
	neg := false
	if s < e && (d[s] == '-' || d[s] == '+') {
		neg = d[s] == '-'
		s++
	}
	mant, digits, frac, ok := decimal8(d, s, e)
	if !ok {
		mant, digits, frac, ok = decimal(d, s, e)
	}
	if !ok || digits == 0 || digits > 15 {
		return 0, false
	}
	v := float64(mant) / colbuild.Pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

// decimal8 reads the digits of d[s:e] with a point among them, at most
// eight on each side, a word at a time (digits8); ok is false for anything
// else, and where the words would reach outside d.
func decimal8(d []byte, s, e int) (mant uint64, digits, frac int, ok bool) {
	if s < 8 || s+8 > len(d) {
		return 0, 0, 0, false
	}
	// The point is among the first nine bytes: in the first eight, or
	// right after them.
	dot := e
	if m := zeroBytes(binary.LittleEndian.Uint64(d[s:]) ^ '.'*lowBits); m != 0 {
		dot = min(s+bits.TrailingZeros64(m)>>3, e)
	} else if s+8 < e {
		if d[s+8] != '.' {
			return 0, 0, 0, false
		}
		dot = s + 8
	}
	frac = max(e-dot-1, 0)
	if frac > 8 {
		return 0, 0, 0, false
	}
	whole, ok1 := digits8(d, dot, dot-s)
	part, ok2 := digits8(d, e, frac)
	return whole*pow10[frac] + part, dot - s + frac, frac, ok1 && ok2
}

// decimal reads the digits of d[s:e], perhaps with a point among them, one
// at a time; ok is false for anything else.
func decimal(d []byte, s, e int) (mant uint64, digits, frac int, ok bool) {
	mant, i := colbuild.Digits(d[:e], s, 0)
	digits = i - s
	if i < e && d[i] == '.' {
		f := i + 1
		mant, i = colbuild.Digits(d[:e], f, mant)
		frac = i - f
		digits += frac
	}
	return mant, digits, frac, i == e
}

// pow10 are the powers of ten up to eight digits shift by.
var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// digits8 converts the n (0 to 8) decimal digits that end at d[e-1], where
// e >= 8, at once: it loads the eight bytes before e, turns the field's n
// into digit values and the bytes before them into zeros, checks that each
// is a digit, and sums them by pairs, fours and eights, where a loop over
// the digits would branch on each and mispredict its end.
func digits8(d []byte, e, n int) (uint64, bool) {
	pad := uint(8-n) * 8                                                    // the bytes before the field, lowest in the word
	t := (binary.LittleEndian.Uint64(d[e-8:e]) ^ '0'*lowBits) >> pad << pad // digits to 0..9
	ok := ((t+0x7676767676767676)|t)&highBits == 0                          // no byte above 9
	t = t*10 + t>>8                                                         // byte 2j: the pair of digits 2j and 2j+1
	return (t&0x000000ff000000ff*(100+1000000<<32) + t>>16&0x000000ff000000ff*(1+10000<<32)) >> 32, ok
}

// endLine steps over one line break (\n, \r\n or \r).
func (p *parser) endLine() {
	if p.data[p.pos] == p.cr && p.cr != p.nl {
		p.pos++
		if p.pos < len(p.data) && p.data[p.pos] == p.nl {
			p.pos++
		}
	} else {
		p.pos++
	}
	p.line++
}

func (p *parser) isEnd(i int) bool { return i >= len(p.data) || p.term[p.data[i]] }

// field returns the field at p.pos, unquoted, and moves past it. The bytes
// may be scratch space, valid until the next call.
func (p *parser) field() ([]byte, error) {
	d, i := p.data, p.pos
	if i < len(d) && d[i] == '"' {
		return p.quoted()
	}
	for i < len(d) && !p.special[d[i]] {
		i++
	}
	if i < len(d) && d[i] == '"' {
		return nil, &ParseError{Line: p.line, Msg: "a quote inside an unquoted field"}
	}
	f := d[p.pos:i]
	p.pos = i
	return f, nil
}

// quoted reads a field in quotes, where "" stands for one quote and line
// breaks are part of the value.
func (p *parser) quoted() ([]byte, error) {
	d := p.data
	start := p.line
	p.scratch = p.scratch[:0]
	i := p.pos + 1
	for {
		if i >= len(d) {
			return nil, &ParseError{Line: start, Msg: "a quoted field is not closed"}
		}
		c := d[i]
		if c == '"' {
			if i+1 < len(d) && d[i+1] == '"' {
				p.scratch = append(p.scratch, '"')
				i += 2
				continue
			}
			i++
			break
		}
		if c == p.nl {
			p.line++
		}
		p.scratch = append(p.scratch, c)
		i++
	}
	p.pos = i
	if !p.isEnd(i) {
		return nil, &ParseError{Line: p.line, Msg: fmt.Sprintf("unexpected %q after a closing quote", d[i])}
	}
	return p.scratch, nil
}

// setInt sets row's value from the unquoted field f, of line line: a
// plain integer, a null, or what strconv parses (spaces, 19 digits).
func (p *parser) setInt(c *column, row, line int, f []byte) error {
	if v, ok := atoi(f, 0, len(f)); ok {
		c.Ints[row] = v
		return nil
	}
	if p.nulls.match(f) {
		c.Nulls = append(c.Nulls, int32(row))
		return nil
	}
	x, err := strconv.ParseInt(string(trimSpace(f)), 10, 64)
	if err != nil {
		return &ParseError{Line: line, Msg: fmt.Sprintf("cannot parse %q as int64", f)}
	}
	c.Ints[row] = x
	return nil
}

// setFloat is setInt for a float: a plain decimal, a null, or what strconv
// parses (exponents, long numbers, spaces).
func (p *parser) setFloat(c *column, row, line int, f []byte) error {
	if v, ok := atof(f, 0, len(f)); ok {
		c.Floats[row] = v
		return nil
	}
	if p.nulls.match(f) {
		c.Floats[row] = math.NaN()
		c.Nulls = append(c.Nulls, int32(row))
		return nil
	}
	v, err := strconv.ParseFloat(string(trimSpace(f)), 64)
	if err != nil {
		return &ParseError{Line: line, Msg: fmt.Sprintf("cannot parse %q as float64", f)}
	}
	c.Floats[row] = v
	return nil
}

// setBool is setInt for a bool: true or false in three spellings, or a
// null.
func (p *parser) setBool(c *column, row, line int, f []byte) error {
	if v, ok := parseBool(f); ok {
		c.Bools[row] = v
		return nil
	}
	if p.nulls.match(f) {
		c.Nulls = append(c.Nulls, int32(row))
		return nil
	}
	return &ParseError{Line: line, Msg: fmt.Sprintf("cannot parse %q as bool", f)}
}

func parseBool(f []byte) (uint8, bool) {
	switch string(f) {
	case "true", "True", "TRUE":
		return 1, true
	case "false", "False", "FALSE":
		return 0, true
	}
	return 0, false
}

// setString adds row's string f, or a null.
func (p *parser) setString(c *column, row int, f []byte) {
	switch {
	case p.nulls.match(f):
		c.Nulls = append(c.Nulls, int32(row))
		c.strs.add(row, nil)
	case len(f) <= strdict.MaxShort && !c.strs.plain:
		// The bytes and the length are the key itself, looked up with
		// the other rows' the row parser took (flush).
		c.strs.pend(row, strdict.Pack(f))
	default:
		c.strs.add(row, f)
	}
}

// stringColumn keeps strings plain, or dictionary-encodes them as it reads
// them; a dictionary column whose values turn out mostly distinct is
// returned plain, where a dictionary would only cost.
type stringColumn struct {
	plain   bool
	rows    int           // the most rows the column will hold
	table   strdict.Table // strings longer than strdict.MaxShort
	short   strdict.ShortTable
	offsets []int32 // dictionary, or plain: the rows', offsets into data
	data    []byte
	indices []int32 // row -> dictionary id

	// The keys of rows that the row parser took, to look up as a batch.
	pendRows []int32
	pendKeys []strdict.Key
	pendIDs  []int32
}

func newStringColumn(rows int, dict bool) *stringColumn {
	if !dict {
		return &stringColumn{plain: true, rows: rows, offsets: make([]int32, 1, rows+1)}
	}
	return &stringColumn{rows: rows, table: strdict.NewTable(256), offsets: make([]int32, 1, 1024), indices: make([]int32, rows)}
}

// sizeRows is the row after which a plain column sizes its data once, from
// the average length so far, instead of growing it many times.
const sizeRows = 1024

func (c *stringColumn) add(row int, f []byte) {
	if !c.plain && len(f) <= strdict.MaxShort {
		c.addShort(row, strdict.Pack(f))
		return
	}
	if !c.plain {
		h := strdict.Hash(f)
		id := c.table.Find(h, f, c.offsets, c.data)
		if id < 0 {
			id = int32(len(c.offsets) - 1)
			c.table.Insert(h, id)
		} else {
			c.indices[row] = id
			return
		}
		c.indices[row] = id
	}
	c.data = append(c.data, f...)
	c.offsets = append(c.offsets, int32(len(c.data)))
	if c.plain && len(c.offsets) == sizeRows+1 && c.rows > sizeRows {
		// Not slices.Grow, which zeroes the new room at once: make leaves
		// fresh memory to be faulted in as the bytes are written, and
		// the room they do not reach untouched.
		grown := make([]byte, len(c.data), len(c.data)+len(c.data)*(c.rows-sizeRows)/sizeRows*9/8)
		copy(grown, c.data)
		c.data = grown
	}
}

// addShort adds a dictionary string of at most strdict.MaxShort bytes,
// whose key is its bytes and length packed in two words.
func (c *stringColumn) addShort(row int, key strdict.Key) { c.indices[row] = c.findOrAdd(key) }

// addKeys adds the dictionary strings of rows first.. by their keys,
// looked up as a batch (FindAll): the probes inline, and the misses of a
// table larger than the cache overlapped.
func (c *stringColumn) addKeys(first int, keys []strdict.Key) {
	c.idsOf(keys, c.indices[first:first+len(keys)])
}

// idsOf sets ids[i] to the id of keys[i], adding the keys the dictionary
// lacks.
func (c *stringColumn) idsOf(keys []strdict.Key, ids []int32) {
	c.short.FindAll(keys, ids)
	for i, id := range ids {
		if id < 0 {
			ids[i] = c.findOrAdd(keys[i]) // perhaps added earlier in the batch
		}
	}
}

// pend keeps row's key for flush.
func (c *stringColumn) pend(row int, key strdict.Key) {
	c.pendRows = append(c.pendRows, int32(row))
	c.pendKeys = append(c.pendKeys, key)
}

// flush looks up the pending keys as a batch (idsOf) and sets their
// rows' ids.
func (c *stringColumn) flush() {
	if len(c.pendKeys) == 0 {
		return
	}
	ids := slices.Grow(c.pendIDs[:0], len(c.pendKeys))[:len(c.pendKeys)]
	c.idsOf(c.pendKeys, ids)
	for i, id := range ids {
		c.indices[c.pendRows[i]] = id
	}
	c.pendRows, c.pendKeys, c.pendIDs = c.pendRows[:0], c.pendKeys[:0], ids[:0]
}

// findOrAdd returns key's id, adding it to the dictionary if new.
func (c *stringColumn) findOrAdd(key strdict.Key) int32 {
	id, added := c.short.FindOrInsert(key, int32(len(c.offsets)-1))
	if added {
		c.data = key.AppendTo(c.data)
		c.offsets = append(c.offsets, int32(len(c.data)))
	}
	return id
}

func (c *stringColumn) finish(rows int, valid []byte) arrow.Array {
	c.flush()
	if c.plain {
		return kernel.NewString(c.offsets, c.data, valid)
	}
	values := kernel.NewString(c.offsets, c.data, nil)
	defer values.Release()
	dict := kernel.NewDict(c.indices[:rows], values, valid)
	if 2*values.Len() <= rows {
		return dict
	}
	defer dict.Release()
	plain, _ := kernel.Concat(kernel.String, []arrow.Array{dict})
	return plain
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

package csv

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/kernel"
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
	p := newParser(data, opts.Delimiter)
	p.nulls = newNullSet(opts.NullValues)
	// Every row ends with a line break but perhaps the last: an upper bound
	// that sizes the columns once.
	rows := bytes.Count(data, []byte{'\n'}) + 1
	keep := func(string) bool { return true }
	if opts.Columns != nil {
		keep = func(name string) bool { return slices.Contains(opts.Columns, name) }
	}
	p.cols = make([]column, len(schema))
	for i, c := range schema {
		col := &p.cols[i]
		col.Kind = c.Type
		if !keep(c.Name) {
			col.Kind = skipped
			continue
		}
		col.code = codeOf[c.Type]
		if !col.Make(rows) {
			col.strs = newStringColumn(rows, c.Dictionary && !opts.NoDictionary)
		}
	}
	if err := p.run(schema); err != nil {
		return nil, err
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for i := range p.cols {
		if p.cols[i].Kind == skipped {
			continue
		}
		c := p.cols[i].finish(p.rows)
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
	term    [256]bool // bytes that end a field: the delimiter and line breaks
	special [256]bool // term and the quote
	line    int       // line of the row being parsed
	rows    int
	cols    []column
	nulls   nullSet
	scratch []byte
}

func newParser(data []byte, delim byte) *parser {
	p := &parser{data: data, delim: delim, line: 1}
	p.term['\n'], p.term['\r'], p.term[delim] = true, true, true
	p.special = p.term
	p.special['"'] = true
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

func (p *parser) run(schema Schema) error {
	d, n, last := p.data, len(p.data), len(p.cols)-1
	term := &p.term
	pos := p.pos
	for pos < n {
		if c := d[pos]; c == '\n' || c == '\r' { // a blank line
			p.pos = pos
			p.endLine()
			pos = p.pos
			continue
		}
		row := p.rows
		for c := range p.cols {
			col := &p.cols[c]
			// The common case of each type inline, the rest in slow paths.
			var err error
			switch col.code {
			case intKind:
				if v, end, ok := scanInt(d, pos, term); ok {
					col.Ints[row], pos = v, end
					break
				}
				p.pos = pos
				err = p.parseInt(col)
				pos = p.pos
			case floatKind:
				if v, end, ok := scanFloat(d, pos, term); ok {
					col.Floats[row], pos = v, end
					break
				}
				p.pos = pos
				err = p.parseFloat(col)
				pos = p.pos
			case stringKind:
				if end, ok := scanString(d, pos, &p.special); ok {
					f := d[pos:end]
					if len(f) <= p.nulls.maxLen && p.nulls.match(f) {
						col.Nulls = append(col.Nulls, int32(row))
						f = nil
					}
					if end-pos <= strdict.MaxShort && f != nil && !col.strs.plain {
						// The bytes and the length are the key itself.
						col.strs.addShort(row, strdict.Pack(f))
					} else {
						col.strs.add(row, f)
					}
					pos = end
					break
				}
				p.pos = pos
				err = p.parseString(col)
				pos = p.pos
			case skipKind:
				if end, ok := scanString(d, pos, &p.special); ok {
					pos = end
					break
				}
				p.pos = pos
				_, err = p.field()
				pos = p.pos
			default:
				p.pos = pos
				err = p.parseBool(col)
				pos = p.pos
			}
			if err != nil {
				if pe, ok := err.(*ParseError); ok && pe.Column == "" {
					pe.Column = schema[c].Name
				}
				return err
			}
			if c == last {
				break
			}
			if pos >= n || d[pos] != p.delim {
				return &ParseError{Line: p.line, Msg: fmt.Sprintf("expected %d fields, found %d", len(p.cols), c+1)}
			}
			pos++
		}
		if pos < n {
			switch d[pos] {
			case '\n', '\r':
				p.pos = pos
				p.endLine()
				pos = p.pos
			case p.delim:
				return &ParseError{Line: p.line, Msg: fmt.Sprintf("expected %d fields, found more", len(p.cols))}
			default:
				return &ParseError{Line: p.line, Msg: fmt.Sprintf("unexpected %q after the last field", d[pos])}
			}
		}
		p.rows++
	}
	p.pos = pos
	return nil
}

// scanInt reads a plain integer of up to 18 digits at d[i] that ends at a
// field's end; ok is false for anything else, which the slow path handles.
func scanInt(d []byte, i int, term *[256]bool) (int64, int, bool) {
	n := len(d)
	neg := false
	if i < n && (d[i] == '-' || d[i] == '+') {
		neg = d[i] == '-'
		i++
	}
	start := i
	v, i := colbuild.Digits(d, i, 0)
	if k := i - start; k == 0 || k > 18 || (i < n && !term[d[i]]) {
		return 0, 0, false
	}
	if neg {
		return -int64(v), i, true
	}
	return int64(v), i, true
}

// scanFloat reads a plain decimal of up to 15 digits at d[i] that ends at a
// field's end. Such digits fit float64's 53 bits and the power of ten is
// exact, so one division rounds correctly (Clinger's fast path); ok is false
// for anything else (exponents, longer numbers, nulls).
func scanFloat(d []byte, i int, term *[256]bool) (float64, int, bool) {
	n := len(d)
	neg := false
	if i < n && (d[i] == '-' || d[i] == '+') {
		neg = d[i] == '-'
		i++
	}
	start := i
	mant, i := colbuild.Digits(d, i, 0)
	digits, frac := i-start, 0
	if i < n && d[i] == '.' {
		i++
		f := i
		mant, i = colbuild.Digits(d, i, mant)
		frac = i - f
		digits += frac
	}
	if digits == 0 || digits > 15 || (i < n && !term[d[i]]) {
		return 0, 0, false
	}
	v := float64(mant) / colbuild.Pow10[frac]
	if neg {
		v = -v
	}
	return v, i, true
}

// scanString finds the end of an unquoted field at d[i]; ok is false for a
// quoted field or a stray quote, which the slow path handles.
func scanString(d []byte, i int, special *[256]bool) (int, bool) {
	for i < len(d) && !special[d[i]] {
		i++
	}
	return i, i == len(d) || d[i] != '"'
}

// endLine steps over one line break (\n, \r\n or \r).
func (p *parser) endLine() {
	if p.data[p.pos] == '\r' {
		p.pos++
		if p.pos < len(p.data) && p.data[p.pos] == '\n' {
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
		if c == '\n' {
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

// parseInt is the slow path of an integer field: nulls, spaces, 19 digits.
func (p *parser) parseInt(c *column) error {
	f, err := p.field()
	if err != nil {
		return err
	}
	if p.nulls.match(f) {
		c.Nulls = append(c.Nulls, int32(p.rows))
		return nil
	}
	x, err := strconv.ParseInt(string(trimSpace(f)), 10, 64)
	if err != nil {
		return &ParseError{Line: p.line, Msg: fmt.Sprintf("cannot parse %q as int64", f)}
	}
	c.Ints[p.rows] = x
	return nil
}

// parseFloat is the slow path of a float field: exponents, long numbers,
// nulls, spaces.
func (p *parser) parseFloat(c *column) error {
	f, err := p.field()
	if err != nil {
		return err
	}
	if p.nulls.match(f) {
		c.Floats[p.rows] = math.NaN()
		c.Nulls = append(c.Nulls, int32(p.rows))
		return nil
	}
	v, err := strconv.ParseFloat(string(trimSpace(f)), 64)
	if err != nil {
		return &ParseError{Line: p.line, Msg: fmt.Sprintf("cannot parse %q as float64", f)}
	}
	c.Floats[p.rows] = v
	return nil
}

func (p *parser) parseBool(c *column) error {
	f, err := p.field()
	if err != nil {
		return err
	}
	if v, ok := parseBool(f); ok {
		c.Bools[p.rows] = v
		return nil
	}
	if p.nulls.match(f) {
		c.Nulls = append(c.Nulls, int32(p.rows))
		return nil
	}
	return &ParseError{Line: p.line, Msg: fmt.Sprintf("cannot parse %q as bool", f)}
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

// parseString is the slow path of a string field: quoted, or a stray quote.
func (p *parser) parseString(c *column) error {
	f, err := p.field()
	if err != nil {
		return err
	}
	if len(f) <= p.nulls.maxLen && p.nulls.match(f) {
		c.strs.add(p.rows, nil)
		c.Nulls = append(c.Nulls, int32(p.rows))
		return nil
	}
	c.strs.add(p.rows, f)
	return nil
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

	// pending are the keys of the short strings of rows first.. whose ids
	// are not found yet: looked up a batch at a time (ShortTable.FindAll).
	pending []strdict.Key
	first   int
}

// batchRows is how many short strings are looked up at once: enough for
// the CPU to overlap their cache misses, few enough to stay in L1.
const batchRows = 256

func newStringColumn(rows int, dict bool) *stringColumn {
	if !dict {
		return &stringColumn{plain: true, rows: rows, offsets: make([]int32, 1, rows+1)}
	}
	return &stringColumn{rows: rows, table: strdict.NewTable(256), offsets: make([]int32, 1, 1024), indices: make([]int32, rows),
		pending: make([]strdict.Key, 0, batchRows)}
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
		c.data = slices.Grow(c.data, len(c.data)*(c.rows-sizeRows)/sizeRows*9/8)
	}
}

// addShort adds a dictionary string of at most strdict.MaxShort bytes,
// whose key is its bytes and length packed in two words. Its id is found
// at once while the table fits the cache, and with the rest of its batch
// once it does not.
func (c *stringColumn) addShort(row int, key strdict.Key) {
	if len(c.pending) == 0 && c.short.Cached() {
		c.indices[row] = c.findOrAdd(key)
		return
	}
	if len(c.pending) == 0 {
		c.first = row
	} else if row != c.first+len(c.pending) { // rows between took the long path
		c.flush()
		c.first = row
	}
	c.pending = append(c.pending, key)
	if len(c.pending) == batchRows {
		c.flush()
	}
}

// flush finds or assigns the ids of the pending strings.
func (c *stringColumn) flush() {
	ids := c.indices[c.first : c.first+len(c.pending)]
	c.short.FindAll(c.pending, ids)
	for i, id := range ids {
		if id >= 0 {
			continue
		}
		ids[i] = c.findOrAdd(c.pending[i]) // perhaps added earlier in the batch
	}
	c.pending = c.pending[:0]
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
	if !c.plain && len(c.pending) > 0 {
		c.flush()
	}
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

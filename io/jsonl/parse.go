package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/internal/colbuild"
	"github.com/duskdata/dusk/io/internal/strdict"
)

// Parse parses the lines of data into a record with the schema's columns,
// only those named in cols when cols is not nil (in the schema's order).
// A missing key and a JSON null are null; keys not in the schema are
// checked for syntax and skipped (Strict fails on them instead); a key given twice in a line keeps its
// last value. A string column takes any value: strings decoded, other
// values as their JSON text. Blank lines are skipped. Errors about the data
// are *ParseError, with lines counted from 1 at data's start. The caller
// owns the record, which shares no memory with data.
func Parse(data []byte, schema Schema, cols []string) (arrow.Record, error) {
	return parse(data, schema, cols, false)
}

// Strict parses every column of the schema as Parse does, except that a key
// outside the schema is an error naming it and the line, so that no value
// is dropped unseen.
func Strict(data []byte, schema Schema) (arrow.Record, error) {
	return parse(data, schema, nil, true)
}

func parse(data []byte, schema Schema, cols []string, strict bool) (arrow.Record, error) {
	if err := check(schema); err != nil {
		return nil, err
	}
	keep, err := projection(schema, cols)
	if err != nil {
		return nil, err
	}
	// Every row but perhaps the last ends with a line break: an upper bound
	// that sizes the columns once.
	rows := bytes.Count(data, []byte{'\n'}) + 1
	p := newParser(schema, keep, rows)
	p.strict = strict
	if err := p.run(data); err != nil {
		return nil, err
	}
	return p.record(schema)
}

// projection says which of the schema's columns to keep.
func projection(schema Schema, cols []string) ([]bool, error) {
	keep := make([]bool, len(schema))
	if cols == nil {
		for i := range keep {
			keep[i] = true
		}
		return keep, nil
	}
	index := make(map[string]int, len(schema))
	for i, c := range schema {
		index[c.Name] = i
	}
	for _, name := range cols {
		i, ok := index[name]
		if !ok {
			return nil, fmt.Errorf("jsonl: column %q is not in the schema; the columns are %q", name, schema.Names())
		}
		keep[i] = true
	}
	return keep, nil
}

// skipped is the kind of a schema column left out by the projection: its
// values are checked for syntax and stepped over.
const skipped Type = "skip"

// column is one column being built; a string column keeps its values in
// strs.
type column struct {
	colbuild.Values
	name string
	strs *strColumn
	set  int32 // row+1 when the row being parsed has set a value
}

type parser struct {
	cols   []column
	active []int          // the columns kept, in schema order
	index  map[string]int // key -> column
	// The keys of the last line, in order, and their columns (-1: not in
	// the schema): lines usually repeat their keys' order, and a key that
	// matches its prediction costs one comparison, not a map lookup.
	predKey   []string
	predCol   []int
	predPlain []bool            // the key is written as it is, without escapes
	unknown   map[string]string // interned keys outside the schema
	strict    bool              // a key outside the schema is an error
	line      int
	rows      int
	scratch   []byte
}

func newParser(schema Schema, keep []bool, rows int) *parser {
	p := &parser{cols: make([]column, len(schema)), index: make(map[string]int, len(schema)), unknown: map[string]string{}}
	for i, c := range schema {
		p.index[c.Name] = i
		col := &p.cols[i]
		col.name = c.Name
		col.Kind = c.Type
		if !keep[i] {
			col.Kind = skipped
			continue
		}
		if logical, ok := c.Type.Logical(); ok { // scanned as text or a number, converted at the end
			col.Kind = String
			switch k, _ := kernel.KindOf(logical); k {
			case kernel.KindInt:
				col.Kind = Int64
			case kernel.KindFloat:
				col.Kind = Float64
			}
		}
		p.active = append(p.active, i)
		if !col.Make(rows) {
			col.strs = newStrColumn(rows, c.Dictionary)
		}
	}
	return p
}

func (p *parser) run(data []byte) error {
	for pos := bomLen(data); pos < len(data); {
		p.line++
		var ln []byte
		if end := bytes.IndexByte(data[pos:], '\n'); end >= 0 {
			ln = data[pos : pos+end]
			pos += end + 1
		} else {
			ln = data[pos:]
			pos = len(data)
		}
		if err := p.row(ln); err != nil {
			return err
		}
	}
	return nil
}

// fail makes the error of the line being parsed; a syntaxError gains the
// line number.
func (p *parser) names() []string {
	out := make([]string, len(p.cols))
	for i, c := range p.cols {
		out[i] = c.name
	}
	return out
}

func (p *parser) fail(col int, err error) error {
	pe := &ParseError{Line: p.line, Msg: err.Error()}
	if col >= 0 {
		pe.Column = p.cols[col].name
	}
	return pe
}

// row parses one line: an object, or nothing but whitespace.
func (p *parser) row(b []byte) error {
	i := skipSpace(b, 0)
	if i == len(b) {
		return nil // a blank line
	}
	if b[i] != '{' {
		end, err := skipValue(b, i, 0)
		if err != nil {
			return p.fail(-1, err)
		}
		return p.fail(-1, fmt.Errorf("want a JSON object, got %s %s", kindOf(b[i]), snippet(b[i:end])))
	}
	if p.rows == math.MaxInt32 {
		return p.fail(-1, errors.New("more than 2^31-1 rows in one record; parse the data in blocks"))
	}
	stamp := int32(p.rows + 1)
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for k := 0; ; k++ {
			if i >= len(b) || b[i] != '"' {
				return p.fail(-1, expected(b, i, "a key in quotes"))
			}
			var c, end int
			keyAt := i
			if k < len(p.predKey) && p.predPlain[k] {
				// The predicted key, compared in place.
				name := p.predKey[k]
				if e := i + 1 + len(name); e < len(b) && b[e] == '"' && string(b[i+1:e]) == name {
					c, end = p.predCol[k], e+1
					goto found
				}
			}
			{
				var esc bool
				var err error
				if end, esc, err = scanString(b, i); err != nil {
					return p.fail(-1, err)
				}
				key := b[i+1 : end-1]
				if esc {
					p.scratch = unescape(p.scratch[:0], key)
					key = p.scratch
				}
				c = p.lookup(k, key)
			}
		found:
			if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
				return p.fail(-1, expected(b, i, "':' after a key"))
			}
			i = skipSpace(b, i+1)
			var err error
			if c < 0 && p.strict {
				k, _, _ := scanString(b, keyAt)
				return p.fail(-1, fmt.Errorf("key %s is not among the columns %q", b[keyAt:k], p.names()))
			}
			if c < 0 || p.cols[c].Kind == skipped {
				i, err = skipValue(b, i, 0)
			} else {
				i, err = p.value(b, i, &p.cols[c], stamp)
			}
			if err != nil {
				return p.fail(c, err)
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return p.fail(-1, expected(b, i, "',' or '}' after a value"))
		}
	}
	if i = skipSpace(b, i); i < len(b) {
		return p.fail(-1, errAt(i, "unexpected %s after the object; each line holds one object", quoteRune(b, i)))
	}
	row := p.rows
	for _, c := range p.active {
		col := &p.cols[c]
		null := col.set != stamp
		if null {
			col.Nulls = append(col.Nulls, int32(row))
			switch col.Kind {
			case Int64:
				col.Ints[row] = 0
			case Float64:
				col.Floats[row] = math.NaN()
			case Bool:
				col.Bools[row] = 0
			}
		}
		if col.Kind == String {
			if err := col.strs.endRow(row, null); err != nil {
				return p.fail(c, err)
			}
		}
	}
	p.rows++
	return nil
}

// lookup finds the column of the k-th key of a line, or -1.
func (p *parser) lookup(k int, key []byte) int {
	if k < len(p.predKey) && p.predCol[k] != -2 && p.predKey[k] == string(key) {
		return p.predCol[k]
	}
	c, ok := p.index[string(key)]
	name := ""
	switch {
	case ok:
		name = p.cols[c].name
	case len(p.unknown) < 1024:
		c = -1
		var seen bool
		if name, seen = p.unknown[string(key)]; !seen {
			name = string(key)
			p.unknown[name] = name
		}
	default: // too many distinct unknown keys to remember: predict nothing
		c = -2
	}
	plain := c != -2 && isPlainKey(name)
	if k >= len(p.predKey) {
		p.predKey = append(p.predKey, name)
		p.predCol = append(p.predCol, c)
		p.predPlain = append(p.predPlain, plain)
	} else {
		p.predKey[k], p.predCol[k], p.predPlain[k] = name, c, plain
	}
	return max(c, -1)
}

// isPlainKey reports whether a key's JSON text is the key itself, between
// quotes: no bytes that must be escaped.
func isPlainKey(name string) bool {
	for i := 0; i < len(name); i++ {
		if strStop[name[i]] {
			return false
		}
	}
	return utf8.ValidString(name)
}

// value parses the value at b[i] into col's row.
func (p *parser) value(b []byte, i int, col *column, stamp int32) (int, error) {
	if i >= len(b) {
		return 0, errAt(i, "the line ends where a value should be")
	}
	row := p.rows
	c := b[i]
	if c == 'n' {
		end, err := scanLiteral(b, i, "null")
		col.set = 0
		return end, err
	}
	switch col.Kind {
	case Int64:
		if c == '-' || c >= '0' && c <= '9' {
			if v, end, ok := fastInt(b, i); ok {
				col.Ints[row], col.set = v, stamp
				return end, nil
			}
			end, isInt, err := scanNumber(b, i)
			if err != nil {
				return 0, err
			}
			if !isInt {
				return 0, fmt.Errorf("want int64, got number %s", snippet(b[i:end]))
			}
			v, err := strconv.ParseInt(unsafeString(b[i:end]), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("want int64, got number %s, out of int64's range", snippet(b[i:end]))
			}
			col.Ints[row], col.set = v, stamp
			return end, nil
		}
	case Float64:
		if c == '-' || c >= '0' && c <= '9' {
			if v, end, ok := fastFloat(b, i); ok {
				col.Floats[row], col.set = v, stamp
				return end, nil
			}
			end, _, err := scanNumber(b, i)
			if err != nil {
				return 0, err
			}
			v, err := strconv.ParseFloat(unsafeString(b[i:end]), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range reads as ±Inf
				return 0, fmt.Errorf("want float64, got number %s", snippet(b[i:end]))
			}
			col.Floats[row], col.set = v, stamp
			return end, nil
		}
	case Bool:
		switch c {
		case 't':
			end, err := scanLiteral(b, i, "true")
			col.Bools[row], col.set = 1, stamp
			return end, err
		case 'f':
			end, err := scanLiteral(b, i, "false")
			col.Bools[row], col.set = 0, stamp
			return end, err
		}
	default: // String: anything goes
		if c == '"' {
			end, esc, err := scanString(b, i)
			if err != nil {
				return 0, err
			}
			v := b[i+1 : end-1]
			if esc {
				p.scratch = unescape(p.scratch[:0], v)
				v = p.scratch
			}
			col.set = stamp
			return end, col.strs.set(row, v, col.Nulls)
		}
		end, err := skipValue(b, i, 0)
		if err != nil {
			return 0, err
		}
		col.set = stamp
		return end, col.strs.set(row, b[i:end], col.Nulls)
	}
	end, err := skipValue(b, i, 0)
	if err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("want %s, got %s %s", col.Kind, kindOf(c), snippet(b[i:end]))
}

// fastInt reads an integer of up to 18 digits at b[i]; ok is false for
// anything else (longer numbers, fractions, exponents, bad syntax), which
// the slow path handles.
func fastInt(b []byte, i int) (int64, int, bool) {
	n := len(b)
	neg := b[i] == '-'
	if neg {
		i++
	}
	start := i
	v, i := colbuild.Digits(b, i, 0)
	k := i - start
	if k == 0 || k > 18 || (k > 1 && b[start] == '0') || (i < n && (b[i] == '.' || b[i] == 'e' || b[i] == 'E')) {
		return 0, 0, false
	}
	if neg {
		return -int64(v), i, true
	}
	return int64(v), i, true
}

// fastFloat reads a decimal of up to 15 digits without an exponent at
// b[i]. Such digits fit float64's 53 bits and the power of ten is exact, so
// one division rounds correctly (Clinger's fast path); ok is false for
// anything else.
func fastFloat(b []byte, i int) (float64, int, bool) {
	n := len(b)
	neg := b[i] == '-'
	if neg {
		i++
	}
	start := i
	mant, i := colbuild.Digits(b, i, 0)
	digits, frac := i-start, 0
	if digits == 0 || (digits > 1 && b[start] == '0') {
		return 0, 0, false
	}
	if i < n && b[i] == '.' {
		i++
		f := i
		mant, i = colbuild.Digits(b, i, mant)
		frac = i - f
		if frac == 0 {
			return 0, 0, false
		}
		digits += frac
	}
	if digits > 15 || (i < n && (b[i] == 'e' || b[i] == 'E')) {
		return 0, 0, false
	}
	v := float64(mant) / colbuild.Pow10[frac]
	if neg {
		v = -v
	}
	return v, i, true
}

// convert turns a column scanned as text (or a number) into its logical
// type; it takes over a.
func convert(a arrow.Array, to arrow.DataType, layout string) (arrow.Array, error) {
	defer a.Release()
	text := a
	if !kernel.IsString(a.DataType()) {
		t, err := kernel.Cast(a, kernel.KindString, true)
		if err != nil {
			return nil, err
		}
		defer t.Release()
		text = t
	}
	return kernel.ParseText(text, to, layout, true)
}

// record wraps the columns kept as a record.
func (p *parser) record(schema Schema) (arrow.Record, error) {
	fields := make([]arrow.Field, 0, len(p.active))
	arrs := make([]arrow.Array, 0, len(p.active))
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	for _, c := range p.active {
		col := &p.cols[c]
		a, err := col.finish(p.rows)
		if err != nil {
			return nil, err
		}
		if logical, ok := schema[c].Type.Logical(); ok {
			if a, err = convert(a, logical, schema[c].Layout); err != nil {
				return nil, fmt.Errorf("column %s: %w", schema[c].Name, err)
			}
		}
		arrs = append(arrs, a)
		fields = append(fields, arrow.Field{Name: schema[c].Name, Type: a.DataType(), Nullable: true})
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), arrs, int64(p.rows)), nil
}

func (c *column) finish(rows int) (arrow.Array, error) {
	valid := colbuild.Validity(c.Nulls, rows)
	if c.strs == nil {
		return c.Array(rows, valid), nil
	}
	a, err := c.strs.finish(rows, c.Nulls, valid)
	if err != nil {
		return nil, fmt.Errorf("jsonl: column %s: %w", c.name, err)
	}
	return a, nil
}

// strColumn builds a string column, plain or dictionary-encoded. A
// dictionary column whose values turn out mostly distinct becomes plain,
// where a dictionary would only cost.
type strColumn struct {
	dict    bool
	rows    int     // the most rows the column will hold
	offsets []int32 // plain: the rows' (one per row ended, plus one); dict: the values'
	data    []byte
	indices []int32            // dict: row -> value id
	ids     map[string]int32   // dict: value -> id, for values longer than strdict.MaxShort
	short   strdict.ShortTable // dict: the ids of the other values
}

// sizeRows is the row after which a plain column sizes its data once, from
// the average length so far, instead of growing it many times.
const sizeRows = 1024

// dictMin is the fewest distinct values at which a dictionary column that
// holds more distinct values than half its rows turns plain.
const dictMin = 4096

func newStrColumn(rows int, dict bool) *strColumn {
	if !dict {
		return &strColumn{rows: rows, offsets: make([]int32, 1, rows+1)}
	}
	return &strColumn{dict: true, rows: rows, offsets: make([]int32, 1, 256), indices: make([]int32, rows), ids: map[string]int32{}}
}

var errTooLarge = errors.New("more than 2 GiB of strings in one column; parse the data in blocks")

// set sets the value of row, the row being parsed; nulls lists the null
// rows before it.
func (s *strColumn) set(row int, v []byte, nulls []int32) error {
	if s.dict {
		var key strdict.Key
		short := len(v) <= strdict.MaxShort
		if short {
			key = strdict.Pack(v)
			if id := s.short.Find(key); id >= 0 {
				s.indices[row] = id
				return nil
			}
		} else if id, ok := s.ids[string(v)]; ok {
			s.indices[row] = id
			return nil
		}
		if n := len(s.offsets) - 1; n < dictMin || n <= row/2 {
			if len(s.data)+len(v) > math.MaxInt32 {
				return errTooLarge
			}
			id := int32(n)
			s.data = append(s.data, v...)
			s.offsets = append(s.offsets, int32(len(s.data)))
			if short {
				s.short.Insert(key, id)
			} else {
				s.ids[string(v)] = id
			}
			s.indices[row] = id
			return nil
		}
		if err := s.toPlain(row, nulls); err != nil {
			return err
		}
	}
	s.data = append(s.data[:s.offsets[row]], v...)
	return nil
}

// endRow ends row, the row being parsed.
func (s *strColumn) endRow(row int, null bool) error {
	if s.dict {
		if null {
			s.indices[row] = 0
		}
		return nil
	}
	if null {
		s.data = s.data[:s.offsets[row]]
	}
	if len(s.data) > math.MaxInt32 {
		return errTooLarge
	}
	s.offsets = append(s.offsets, int32(len(s.data)))
	if row+1 == sizeRows && s.rows > sizeRows {
		s.data = grow(s.data, len(s.data)*(s.rows-sizeRows)/sizeRows*9/8)
	}
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return append(make([]byte, 0, len(b)+n), b...)
}

// toPlain turns a dictionary column of rows rows into a plain one; the
// null rows (listed in nulls) hold no bytes.
func (s *strColumn) toPlain(rows int, nulls []int32) error {
	offsets := make([]int32, 1, s.rows+1)
	var data []byte
	for r := 0; r < rows; r++ {
		if len(nulls) > 0 && int(nulls[0]) == r {
			nulls = nulls[1:]
		} else {
			id := s.indices[r]
			data = append(data, s.data[s.offsets[id]:s.offsets[id+1]]...)
			if len(data) > math.MaxInt32 {
				return errTooLarge
			}
		}
		offsets = append(offsets, int32(len(data)))
	}
	*s = strColumn{rows: s.rows, offsets: offsets, data: data}
	return nil
}

func (s *strColumn) finish(rows int, nulls []int32, valid []byte) (arrow.Array, error) {
	if s.dict && 2*(len(s.offsets)-1) > rows {
		if err := s.toPlain(rows, nulls); err != nil {
			return nil, err
		}
	}
	if !s.dict {
		return kernel.NewString(s.offsets[:rows+1], s.data, valid), nil
	}
	values := kernel.NewString(s.offsets, s.data, nil)
	defer values.Release()
	return kernel.NewDict(s.indices[:rows], values, valid), nil
}

package csv

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/duskdata/dusk/io/internal/colbuild"
	"github.com/duskdata/dusk/io/internal/strdict"
	"github.com/duskdata/dusk/io/storage"
)

// SampleSize is how much of the first file Infer reads.
const SampleSize = 1 << 20

// Infer reads the start of the file at path and returns its schema: the
// header's names (or opts.Names) and, for each column without a type in
// opts.Types, the narrowest of int64, float64, bool, date32 (2006-01-02),
// timestamp[us] (ISO 8601 date and time; tz=UTC where every one has an
// offset) and string that every sampled value fits. A column with only nulls in the sample is a string.
// String columns whose sampled values repeat (at least one in 20 is a
// repeat, or at most 16 distinct) are marked for dictionary encoding.
// A later value that does not fit the inferred type fails the read with the
// file and line; give the type in opts.Types then.
func Infer(path string, opts Options) (Schema, error) {
	opts, err := opts.WithDefaults()
	if err != nil {
		return nil, err
	}
	f, err := storage.OpenStream(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	buf := make([]byte, SampleSize)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	sample := buf[:n]
	if n == SampleSize { // drop the last, likely partial, line
		for n > 0 && !lineEnd(sample[n-1], opts.Terminator) {
			n--
		}
		sample = sample[:n]
	}
	pos, blank := skipBlankLines(sample, 0, opts.Terminator)
	var names []string
	if !opts.NoHeader {
		if pos == len(sample) {
			return nil, fmt.Errorf("read %s: the file is empty: no header", path)
		}
		if names, pos, err = splitLine(sample, pos, opts.Delimiter, opts.Terminator); err != nil {
			return nil, fmt.Errorf("read %s line %d: %w", path, blank+1, err)
		}
	}
	if len(opts.Names) > 0 {
		if !opts.NoHeader && len(opts.Names) != len(names) {
			return nil, fmt.Errorf("read %s: %d names given for %d columns", path, len(opts.Names), len(names))
		}
		names = opts.Names
	}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			return nil, fmt.Errorf("read %s: column %q appears twice", path, name)
		}
		seen[name] = true
	}
	for name := range opts.Types {
		if !seen[name] {
			return nil, fmt.Errorf("read %s: a type is given for %q, which is not a column; the columns are %q", path, name, names)
		}
	}
	fits := make([]struct {
		notInt, notFloat, notBool, any bool
		times                          colbuild.TimeFit
	}, len(names))
	// The hashes of each column's values, counted as distinct values at the
	// end: cheaper than a set of the strings, and a collision only
	// undercounts by one.
	hashes := make([][]uint64, len(names))
	nulls := newNullSet(opts.NullValues)
	line := blank + 1
	if !opts.NoHeader {
		line++
	}
	p := newParser(sample, opts.Delimiter, opts.Terminator)
	p.pos = pos
	for p.pos < len(sample) {
		if c := sample[p.pos]; c == p.nl || c == p.cr {
			p.pos++
			continue
		}
		for i := range names {
			v, err := p.field()
			if err != nil {
				return nil, fmt.Errorf("read %s line %d: %w", path, line, err)
			}
			if p.pos < len(sample) && sample[p.pos] == opts.Delimiter {
				if i == len(names)-1 {
					return nil, &ParseError{Path: path, Line: line, Msg: fmt.Sprintf("expected %d fields, found more", len(names))}
				}
				p.pos++
			} else if i < len(names)-1 {
				return nil, &ParseError{Path: path, Line: line, Msg: fmt.Sprintf("expected %d fields, found %d", len(names), i+1)}
			}
			if nulls.match(v) {
				continue
			}
			t := &fits[i]
			t.any = true
			colbuild.SeeTime(v, &t.times)
			if len(hashes[i]) < maxDictSample {
				hashes[i] = append(hashes[i], strdict.Hash(v))
			}
			if leadingZero(v) {
				// An identifier such as a ZIP code ("01873"): its zeros
				// are part of it, so it is text, as DuckDB and Polars read it.
				t.notInt, t.notFloat, t.notBool = true, true, true
			}
			if !t.notInt {
				if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
					t.notBool = true // an integer is a float too, and not a bool
					continue
				}
				t.notInt = true
			}
			if !t.notFloat {
				if _, err := strconv.ParseFloat(string(v), 64); err != nil {
					t.notFloat = true
				}
			}
			if !t.notBool {
				if _, ok := parseBool(v); !ok {
					t.notBool = true
				}
			}
		}
		if p.pos < len(sample) {
			p.endLine()
		}
		line++
	}
	schema := make(Schema, len(names))
	for i, name := range names {
		t := fits[i]
		typ := String
		switch {
		case opts.Types[name] != "":
			typ = opts.Types[name]
		case !t.any:
		case !t.notInt:
			typ = Int64
		case !t.notFloat:
			typ = Float64
		case !t.notBool:
			typ = Bool
		case t.times.Type() != "":
			typ = t.times.Type()
		}
		schema[i] = Column{Name: name, Type: typ}
		if typ == String && !opts.NoDictionary {
			// Values repeat among the sampled rows (at least one in 20 is
			// a repeat): encode each once. A key of many values, such as
			// db-benchmark's id3 (N/100 of them), repeats little in a
			// sample yet much in a partition; a partition whose values turn
			// out mostly distinct is stored plain (stringColumn.finish).
			schema[i].Dictionary = distinct(hashes[i]) <= max(16, len(hashes[i])*19/20)
		}
	}
	return schema, nil
}

// leadingZero reports whether v is digits that start with a zero followed
// by another digit, after an optional sign: not how a number is written.
func leadingZero(v []byte) bool {
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	return len(v) > 1 && v[0] == '0' && v[1] >= '0' && v[1] <= '9'
}

// maxDictSample caps the values whose distinct count Infer takes per column.
const maxDictSample = 1 << 16

// distinct counts the distinct values among hashes, which it sorts.
func distinct(hashes []uint64) int {
	slices.Sort(hashes)
	return len(slices.Compact(hashes))
}

// splitLine splits the line at pos into fields and returns the position of
// the next line. It is the slow, general path, for headers and samples.
// skipBlankLines steps over the blank lines at pos, as pandas does before
// the header, and returns where the next line starts and how many it
// stepped over.
func skipBlankLines(data []byte, pos int, terminator byte) (int, int) {
	n := 0
	for pos < len(data) && lineEnd(data[pos], terminator) {
		if terminator == 0 && data[pos] == '\r' && pos+1 < len(data) && data[pos+1] == '\n' {
			pos++
		}
		pos++
		n++
	}
	return pos, n
}

// lineEnd reports whether c ends a line: \n or \r, or the terminator.
func lineEnd(c, terminator byte) bool {
	if terminator != 0 {
		return c == terminator
	}
	return c == '\n' || c == '\r'
}

func splitLine(data []byte, pos int, delim, terminator byte) ([]string, int, error) {
	p := newParser(data, delim, terminator)
	p.pos = pos
	var fields []string
	for {
		f, err := p.field()
		if err != nil {
			return nil, 0, err
		}
		fields = append(fields, string(f))
		if p.pos >= len(data) {
			return fields, p.pos, nil
		}
		switch data[p.pos] {
		case delim:
			p.pos++
		default: // a line break
			p.endLine()
			return fields, p.pos, nil
		}
	}
}

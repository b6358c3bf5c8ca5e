package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/duskdata/dusk/io/internal/colbuild"
)

// SampleSize is how much of the start of a file a caller should hand Infer.
const SampleSize = 1 << 20

// Infer returns the schema of the JSON lines in sample, which must be whole
// lines (the start of a file cut after a line break). The columns are the
// keys of the objects, in the order first seen, each of the narrowest type
// that all its sampled values fit: int64 when every number is an integer
// (within int64's range), float64 for any other number, bool for true and
// false, and string for strings, nested objects and arrays (their JSON
// text), mixed kinds (a number and a string, a bool and a number), and keys
// seen only with null. String columns with few distinct values in the
// sample are marked for dictionary encoding. A later value that does not
// fit fails the parse with its line; give the type in the schema then.
// Malformed lines are *ParseError.
func Infer(sample []byte) (Schema, error) {
	var (
		keys  []*keyStats
		index = map[string]int{}
		line  = 0
		rows  = 0
		buf   []byte
	)
	for pos := bomLen(sample); pos < len(sample); {
		line++
		var b []byte
		if end := bytes.IndexByte(sample[pos:], '\n'); end >= 0 {
			b = sample[pos : pos+end]
			pos += end + 1
		} else {
			b = sample[pos:]
			pos = len(sample)
		}
		i := skipSpace(b, 0)
		if i == len(b) {
			continue
		}
		fail := func(err error) error { return &ParseError{Line: line, Msg: err.Error()} }
		if b[i] != '{' {
			end, err := skipValue(b, i, 0)
			if err != nil {
				return nil, fail(err)
			}
			return nil, fail(fmt.Errorf("want a JSON object, got %s %s", kindOf(b[i]), snippet(b[i:end])))
		}
		rows++
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			i++
		} else {
			for {
				if i >= len(b) || b[i] != '"' {
					return nil, fail(expected(b, i, "a key in quotes"))
				}
				end, esc, err := scanString(b, i)
				if err != nil {
					return nil, fail(err)
				}
				key := b[i+1 : end-1]
				if esc {
					buf = unescape(buf[:0], key)
					key = buf
				}
				k, ok := index[string(key)]
				if !ok {
					k = len(keys)
					index[string(key)] = k
					keys = append(keys, &keyStats{name: string(key), distinct: map[string]struct{}{}})
				}
				if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
					return nil, fail(expected(b, i, "':' after a key"))
				}
				i = skipSpace(b, i+1)
				if i, err = keys[k].add(b, i); err != nil {
					pe := fail(err).(*ParseError)
					pe.Column = keys[k].name
					return nil, pe
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
				return nil, fail(expected(b, i, "',' or '}' after a value"))
			}
		}
		if i = skipSpace(b, i); i < len(b) {
			return nil, fail(errAt(i, "unexpected %s after the object; each line holds one object", quoteRune(b, i)))
		}
	}
	schema := make(Schema, len(keys))
	for i, k := range keys {
		schema[i] = Column{Name: k.name, Type: k.typ()}
		if schema[i].Type == String {
			// Few distinct values among the sampled rows: encode them once.
			schema[i].Dictionary = k.any && len(k.distinct) <= max(16, rows/8)
		}
	}
	return schema, nil
}

// maxDictSample caps the distinct values Infer counts per key.
const maxDictSample = 1 << 16

// keyStats is what Infer has seen of one key's values.
type keyStats struct {
	name                                string
	ints, floats, bools, strs, overflow bool
	times                               colbuild.TimeFit // of the strings
	any                                 bool             // a value other than null
	distinct                            map[string]struct{}
}

// add notes the value at b[i] and returns its end.
func (k *keyStats) add(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errAt(i, "the line ends where a value should be")
	}
	c := b[i]
	var end int
	var err error
	switch {
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == 't' || c == 'f':
		end, err = skipValue(b, i, 0)
		k.bools = true
	case c == '-' || c >= '0' && c <= '9':
		var isInt bool
		if end, isInt, err = scanNumber(b, i); err != nil {
			return 0, err
		}
		switch {
		case !isInt:
			k.floats = true
		case !k.overflow:
			if _, perr := strconv.ParseInt(unsafeString(b[i:end]), 10, 64); errors.Is(perr, strconv.ErrRange) {
				k.overflow = true
			}
			k.ints = true
		}
	default: // strings, objects, arrays, and errors
		end, err = skipValue(b, i, 0)
		k.strs = true
		if inner := b[i+1 : max(i+1, end-1)]; err == nil && c == '"' && !bytes.ContainsRune(inner, '\\') {
			colbuild.SeeTime(inner, &k.times)
		} else {
			k.times.NotTime()
		}
	}
	if err != nil {
		return 0, err
	}
	k.any = true
	if len(k.distinct) <= maxDictSample {
		k.distinct[string(b[i:end])] = struct{}{}
	}
	return end, nil
}

func (k *keyStats) typ() Type {
	switch {
	case k.strs && !k.bools && !k.ints && !k.floats && k.times.Type() != "":
		return k.times.Type()
	case k.strs || k.bools && (k.ints || k.floats):
		return String
	case k.bools:
		return Bool
	case k.floats || k.overflow:
		return Float64
	case k.ints:
		return Int64
	}
	return String // only nulls
}

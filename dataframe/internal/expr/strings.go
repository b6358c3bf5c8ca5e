package expr

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// The function table's string functions (functions.go describes the
// table).

// ---- strings

func isString(t arrow.DataType) bool { return KindOfType(t) == kernel.KindString }

// stringTest is a string predicate whose test is made from the call's
// options (and checked at plan time by making it).
func stringTest(name string, make func(n *Node) (func([]byte) bool, error)) *function {
	return &function{name: name, arity: 1, format: callFormat,
		typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
			if err := needs(c, in, "a string", isString); err != nil {
				return nil, err
			}
			_, err := make(c.n)
			return kernel.Bool, err
		},
		eval: func(c *evalCall, in []value) (value, error) {
			test, err := make(c.n)
			if err != nil {
				return value{}, err
			}
			return c.mask(kernel.StringTest(c.array(in[0]), test)), nil
		}}
}

// stringMap is a string to string function made from the call's options.
func stringMap(name string, make func(n *Node) (func(dst, s []byte) ([]byte, bool), error)) *function {
	return &function{name: name, arity: 1, format: callFormat,
		typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
			if err := needs(c, in, "a string", isString); err != nil {
				return nil, err
			}
			_, err := make(c.n)
			return kernel.String, err
		},
		eval: func(c *evalCall, in []value) (value, error) {
			f, err := make(c.n)
			if err != nil {
				return value{}, err
			}
			return c.column(kernel.StringMap(c.array(in[0]), f)), nil
		}}
}

func literalTest(test func(s, pat []byte) bool) func(n *Node) (func([]byte) bool, error) {
	return func(n *Node) (func([]byte) bool, error) {
		pat := []byte(n.Str[0])
		return func(s []byte) bool { return test(s, pat) }, nil
	}
}

func stringFunctions() []*function {
	contains := stringTest("str.contains", literalTest(bytes.Contains))
	contains.eval = func(c *evalCall, in []value) (value, error) {
		return c.mask(kernel.Contains(c.array(in[0]), []byte(c.n.Str[0]))), nil
	}
	return []*function{
		contains,
		stringTest("str.starts_with", literalTest(bytes.HasPrefix)),
		stringTest("str.ends_with", literalTest(bytes.HasSuffix)),
		stringTest("str.matches", func(n *Node) (func([]byte) bool, error) {
			re, err := regexp.Compile(n.Str[0])
			if err != nil {
				return nil, fmt.Errorf("str.matches: %w", err)
			}
			return re.Match, nil
		}),
		stringTest("str.like", likeTest),
		stringMap("str.lower", func(*Node) (func(dst, s []byte) ([]byte, bool), error) {
			return caseMap(bytes.ToLower, 'A', 'Z'), nil
		}),
		stringMap("str.upper", func(*Node) (func(dst, s []byte) ([]byte, bool), error) {
			return caseMap(bytes.ToUpper, 'a', 'z'), nil
		}),
		stringMap("str.strip", func(*Node) (func(dst, s []byte) ([]byte, bool), error) {
			return func(dst, s []byte) ([]byte, bool) { return append(dst, bytes.TrimSpace(s)...), true }, nil
		}),
		stringMap("str.replace", func(n *Node) (func(dst, s []byte) ([]byte, bool), error) {
			old, new := []byte(n.Str[0]), []byte(n.Str[1])
			if len(old) == 0 {
				return nil, fmt.Errorf("str.replace: the text to replace is empty")
			}
			return func(dst, s []byte) ([]byte, bool) {
				for {
					i := bytes.Index(s, old)
					if i < 0 {
						return append(dst, s...), true
					}
					dst = append(append(dst, s[:i]...), new...)
					s = s[i+len(old):]
				}
			}, nil
		}),
		stringMap("str.slice", func(n *Node) (func(dst, s []byte) ([]byte, bool), error) {
			start, length := int(n.Int[0]), int(n.Int[1])
			return func(dst, s []byte) ([]byte, bool) { return append(dst, sliceRunes(s, start, length)...), true }, nil
		}),
		stringMap("str.split_get", func(n *Node) (func(dst, s []byte) ([]byte, bool), error) {
			sep, i := []byte(n.Str[0]), int(n.Int[0])
			if len(sep) == 0 {
				return nil, fmt.Errorf("str.split_get: the separator is empty")
			}
			return func(dst, s []byte) ([]byte, bool) {
				piece, ok := splitGet(s, sep, i)
				return append(dst, piece...), ok
			}, nil
		}),
		{name: "str.len", arity: 1, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				return kernel.Int64, needs(c, in, "a string", isString)
			},
			eval: func(c *evalCall, in []value) (value, error) {
				return c.column(kernel.StringInts(c.array(in[0]), kernel.RuneCount)), nil
			}},
		{name: "concat_str", arity: 1, variadic: true, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				return kernel.String, nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				parts := make([]kernel.Datum, len(in))
				for i, v := range in {
					d := v.asDatum()
					switch {
					case d.Array == nil && d.Scalar != nil:
						d = kernel.Scalar(formatScalar(d.Scalar))
					case d.Array != nil && d.Kind() != kernel.KindString:
						col, err := kernel.Cast(d.Array, kernel.KindString, true)
						if err != nil {
							return value{}, err
						}
						d = kernel.Col(col)
					}
					parts[i] = d
				}
				return c.column(kernel.ConcatStrings(parts, c.rows)), nil
			}},
	}
}

// formatScalar writes a literal as concat_str joins it.
func formatScalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return string(kernel.AppendFloat(nil, v))
	}
	return fmt.Sprint(v)
}

// caseMap changes case, byte by byte where s is ASCII.
func caseMap(full func([]byte) []byte, lo, hi byte) func(dst, s []byte) ([]byte, bool) {
	return func(dst, s []byte) ([]byte, bool) {
		for _, c := range s {
			if c >= utf8.RuneSelf {
				return append(dst, full(s)...), true
			}
		}
		for _, c := range s {
			if c >= lo && c <= hi {
				c ^= 0x20
			}
			dst = append(dst, c)
		}
		return dst, true
	}
}

// sliceRunes is length characters of s from start (negative: from the end;
// a negative length: to the end).
func sliceRunes(s []byte, start, length int) []byte {
	n := utf8.RuneCount(s)
	if start < 0 {
		start = max(n+start, 0)
	}
	start = min(start, n)
	end := n
	if length >= 0 {
		end = min(start+length, n)
	}
	if n == len(s) { // ASCII
		return s[start:end]
	}
	i, lo, hi := 0, len(s), len(s)
	for pos := range string(s) {
		if i == start {
			lo = pos
		}
		if i == end {
			hi = pos
			break
		}
		i++
	}
	return s[lo:hi]
}

// splitGet is piece i of s cut at sep (negative i from the end).
func splitGet(s, sep []byte, i int) ([]byte, bool) {
	if i < 0 {
		for ; ; i++ {
			j := bytes.LastIndex(s, sep)
			if i == -1 {
				return s[j+len(sep):], true // j = -1: the whole first piece
			}
			if j < 0 {
				return nil, false
			}
			s = s[:j]
		}
	}
	for ; ; i-- {
		j := bytes.Index(s, sep)
		if i == 0 {
			if j < 0 {
				return s, true
			}
			return s[:j], true
		}
		if j < 0 {
			return nil, false
		}
		s = s[j+len(sep):]
	}
}

// likeTest makes SQL's LIKE test. A pattern with no _ runs as literal
// searches: its first piece a prefix, its last a suffix, and those between
// found in order, each leftmost (which is enough where % is the only
// wildcard); a pattern with _ runs as a regular expression.
func likeTest(n *Node) (func([]byte) bool, error) {
	pat := n.Str[0]
	if !strings.Contains(pat, "_") {
		pieces := bytes.Split([]byte(pat), []byte("%"))
		if len(pieces) == 1 {
			return func(s []byte) bool { return bytes.Equal(s, pieces[0]) }, nil
		}
		first, last, middle := pieces[0], pieces[len(pieces)-1], pieces[1:len(pieces)-1]
		return func(s []byte) bool {
			if len(s) < len(first)+len(last) || !bytes.HasPrefix(s, first) || !bytes.HasSuffix(s, last) {
				return false
			}
			s = s[len(first) : len(s)-len(last)]
			for _, m := range middle {
				i := bytes.Index(s, m)
				if i < 0 {
					return false
				}
				s = s[i+len(m):]
			}
			return true
		}, nil
	}
	var re strings.Builder
	re.WriteString(`(?s)^`)
	for _, r := range pat {
		switch r {
		case '%':
			re.WriteString(".*")
		case '_':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("$")
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("str.like %q: %w", pat, err)
	}
	return compiled.Match, nil
}

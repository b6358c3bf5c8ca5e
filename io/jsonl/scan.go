package jsonl

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The scanners below work on one line, b, and take and return byte offsets
// into it. They check JSON's grammar as they go and report a syntaxError
// rather than read past the line's end.

// syntaxError is malformed JSON at byte pos of a line.
type syntaxError struct {
	pos int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.msg, e.pos+1) }

func errAt(pos int, format string, args ...any) error {
	return &syntaxError{pos: pos, msg: fmt.Sprintf(format, args...)}
}

// maxDepth bounds the nesting of the objects and arrays a line may hold.
const maxDepth = 1000

// strStop marks the bytes that end a run of plain string bytes: the quote,
// the backslash and the control characters, which JSON requires escaped.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// bomLen is the length of the UTF-8 byte order mark at the start of data,
// which some tools write and Parse and Infer step over; 0 if there is none.
func bomLen(data []byte) int {
	if len(data) >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf {
		return 3
	}
	return 0
}

// skipSpace steps over JSON whitespace within a line.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString scans the string whose opening quote is at b[i]; it returns
// the offset after the closing quote and whether the string holds escapes.
func scanString(b []byte, i int) (int, bool, error) {
	n, start := len(b), i
	i++
	esc := false
	var hi byte
	for {
		for i < n && !strStop[b[i]] {
			hi |= b[i]
			i++
		}
		if i >= n {
			return 0, false, errAt(start, "the line ends inside a string")
		}
		switch c := b[i]; c {
		case '"':
			if hi >= utf8.RuneSelf && !utf8.Valid(b[start+1:i]) {
				return 0, false, errAt(start, "invalid UTF-8 in a string")
			}
			return i + 1, esc, nil
		case '\\':
			esc = true
			if i+1 >= n {
				return 0, false, errAt(start, "the line ends inside a string")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > n || !isHex4(b[i+2:i+6]) {
					return 0, false, errAt(i, "a \\u escape without four hex digits")
				}
				i += 6
			default:
				return 0, false, errAt(i, "invalid escape %s", quoteRune(b, i+1))
			}
		default:
			return 0, false, errAt(i, "a control character (%#02x) inside a string; JSON requires it escaped", c)
		}
	}
}

func isHex4(h []byte) bool {
	for _, c := range h {
		if hexVal(c) < 0 {
			return false
		}
	}
	return true
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func hex4(h []byte) rune {
	return rune(hexVal(h[0])<<12 | hexVal(h[1])<<8 | hexVal(h[2])<<4 | hexVal(h[3]))
}

// unescape appends the decoded contents of a string that scanString has
// checked (without its quotes) to dst. A lone UTF-16 surrogate becomes
// U+FFFD, as in encoding/json.
func unescape(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = hex4(s[i+2:])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

// scanNumber scans the number at b[i] and reports whether it is an
// integer: no fraction and no exponent.
func scanNumber(b []byte, i int) (int, bool, error) {
	n, start := len(b), i
	if b[i] == '-' {
		i++
	}
	if i >= n || b[i] < '0' || b[i] > '9' {
		return 0, false, errAt(start, "invalid number")
	}
	if b[i] == '0' {
		i++
		if i < n && b[i] >= '0' && b[i] <= '9' {
			return 0, false, errAt(start, "a number with a leading zero")
		}
	} else {
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	isInt := true
	if i < n && b[i] == '.' {
		isInt = false
		i++
		d := i
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, false, errAt(start, "a number without digits after its point")
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		isInt = false
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, false, errAt(start, "a number without digits in its exponent")
		}
	}
	return i, isInt, nil
}

// scanLiteral checks that word (true, false or null) is at b[i].
func scanLiteral(b []byte, i int, word string) (int, error) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return 0, errAt(i, "invalid literal %s (want %s)", snippet(b[i:min(len(b), i+len(word))]), word)
	}
	return i + len(word), nil
}

// skipValue scans the value at b[i], whatever it is, and returns its end.
func skipValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, errAt(i, "the line ends where a value should be")
	}
	switch c := b[i]; c {
	case '"':
		end, _, err := scanString(b, i)
		return end, err
	case '{', '[':
		if depth >= maxDepth {
			return 0, errAt(i, "objects and arrays nested more than %d deep", maxDepth)
		}
		return skipContainer(b, i, depth+1)
	case 't':
		return scanLiteral(b, i, "true")
	case 'f':
		return scanLiteral(b, i, "false")
	case 'n':
		return scanLiteral(b, i, "null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			end, _, err := scanNumber(b, i)
			return end, err
		}
		return 0, errAt(i, "unexpected %s where a value should be", quoteRune(b, i))
	}
}

// skipContainer scans the object or array that opens at b[i].
func skipContainer(b []byte, i, depth int) (int, error) {
	obj := b[i] == '{'
	closer := byte(']')
	if obj {
		closer = '}'
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1, nil
	}
	for {
		var err error
		if obj {
			if i >= len(b) || b[i] != '"' {
				return 0, expected(b, i, "a key in quotes")
			}
			if i, _, err = scanString(b, i); err != nil {
				return 0, err
			}
			if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
				return 0, expected(b, i, "':' after a key")
			}
			i = skipSpace(b, i+1)
		}
		if i, err = skipValue(b, i, depth); err != nil {
			return 0, err
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == closer {
			return i + 1, nil
		}
		return 0, expected(b, i, fmt.Sprintf("',' or '%c'", closer))
	}
}

// expected reports that what was wanted is not at b[i].
func expected(b []byte, i int, want string) error {
	if i >= len(b) {
		return errAt(i, "the line ends where %s should be", want)
	}
	return errAt(i, "unexpected %s where %s should be", quoteRune(b, i), want)
}

// quoteRune quotes the character at b[i] for a message.
func quoteRune(b []byte, i int) string {
	r, _ := utf8.DecodeRune(b[i:])
	return fmt.Sprintf("%q", r)
}

// kindOf names the kind of JSON value that starts with c.
func kindOf(c byte) string {
	switch c {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// snippet is a value's text for a message, cut short when long.
func snippet(v []byte) string {
	const most = 40
	if len(v) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		return string(v[:cut]) + "..."
	}
	return string(v)
}

// unsafeString views b as a string without copying, for strconv; the
// string must not outlive b's contents.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

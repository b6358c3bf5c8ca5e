package csv

import (
	"bytes"
	"math"
	"math/bits"
	"math/rand"
	"strconv"
	"testing"
)

// The bitmap of special bytes, in assembly and in Go, marks exactly the
// delimiter, the line breaks and the quote, for any delimiter, and a
// window over any length of data ends at the data's end.
func TestSpecialWords(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	data := make([]byte, 64*40)
	alphabet := []byte("ab,;\t\n\r\"0\x00\xff")
	for i := range data {
		data[i] = alphabet[r.Intn(len(alphabet))]
	}
	for _, c := range []struct{ delim, term byte }{{',', 0}, {';', 0}, {'\t', 0}, {0, 0}, {',', ';'}, {'\t', 'a'}} {
		delim, nl, cr := c.delim, byte('\n'), byte('\r')
		if c.term != 0 {
			nl, cr = c.term, c.term
		}
		want := make([]uint64, len(data)/64)
		for i, c := range data {
			if c == delim || c == nl || c == cr || c == '"' {
				want[i/64] |= 1 << (i % 64)
			}
		}
		for name, f := range map[string]func([]byte, uint64, uint64, uint64, []uint64){"specialWords": specialWords, "specialWordsGo": specialWordsGo} {
			got := make([]uint64, len(want))
			f(data, uint64(delim)*lowBits, uint64(nl)*lowBits, uint64(cr)*lowBits, got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s, delimiter %q, word %d: %064b, want %064b", name, delim, i, got[i], want[i])
				}
			}
		}
		// The parser's window over data of every length up to 130 bytes.
		for n := 0; n <= 130; n++ {
			p := newParser(data[:n], delim, c.term)
			var got []int
			for m, wb := p.bitsFrom(0); ; m &= m - 1 {
				for m == 0 {
					m, wb = p.nextWord(wb)
				}
				e := wb + bits.TrailingZeros64(m)
				if e >= n {
					break
				}
				got = append(got, e)
			}
			var wantEnds []int
			for i, c := range data[:n] {
				if c == delim || c == nl || c == cr || c == '"' {
					wantEnds = append(wantEnds, i)
				}
			}
			if len(got) != len(wantEnds) {
				t.Fatalf("delimiter %q, %d bytes: ends %v, want %v", delim, n, got, wantEnds)
			}
			for i := range got {
				if got[i] != wantEnds[i] {
					t.Fatalf("delimiter %q, %d bytes: ends %v, want %v", delim, n, got, wantEnds)
				}
			}
		}
	}
}

// atoi and atof agree with strconv on what they accept, word at a time or
// byte at a time, and accept every plain number they are meant to.
func TestNumbersMatchStrconv(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	const chars = "0123456789012345678901234567890123456789.-+e x\xff\xb5/:"
	for range 200000 {
		f := make([]byte, r.Intn(21))
		for i := range f {
			f[i] = chars[r.Intn(len(chars))]
		}
		if r.Intn(2) == 0 { // mostly digits with a point: the fast paths' cases
			f = []byte(strconv.FormatFloat(r.Float64()*math.Pow(10, float64(r.Intn(12))), 'f', r.Intn(10), 64))
		}
		pad := r.Intn(12)
		d := append(append(append([]byte{}, "xxxxxxxxxxxx"[:pad]...), f...), ",1234567890"[:r.Intn(11)]...)
		s, e := pad, pad+len(f)
		if v, ok := atoi(d, s, e); ok {
			if w, err := strconv.ParseInt(string(f), 10, 64); err != nil || v != w {
				t.Fatalf("atoi(%q) = %d, strconv: %d, %v", f, v, w, err)
			}
		} else if digitsOnly(f) && len(f) <= 18 && len(f) > 0 {
			t.Fatalf("atoi(%q) rejected a plain integer", f)
		}
		if v, ok := atof(d, s, e); ok {
			if w, err := strconv.ParseFloat(string(f), 64); err != nil || v != w {
				t.Fatalf("atof(%q) = %v, strconv: %v, %v", f, v, w, err)
			}
		} else if n := len(bytes.ReplaceAll(f, []byte("."), nil)); digitsOnly(bytes.Replace(f, []byte("."), nil, 1)) && n > 0 && n <= 15 {
			t.Fatalf("atof(%q) rejected a plain decimal", f)
		}
	}
}

func digitsOnly(f []byte) bool {
	for _, c := range f {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

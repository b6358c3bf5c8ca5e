package jsonl_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/memcheck"
	"github.com/duskdata/dusk/io/internal/iotest"
	"github.com/duskdata/dusk/io/jsonl"
)

// randomLines makes n lines of objects over keys k0..k4 (int, float, bool,
// string, string) plus unknown keys, with random key order, whitespace,
// nulls, missing and repeated keys, escapes and nested values.
func randomLines(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	ws := func() {
		for r.IntN(4) == 0 {
			b.WriteByte(" \t\r"[r.IntN(3)])
		}
	}
	value := func(k int) any {
		if r.IntN(8) == 0 {
			return nil
		}
		switch k {
		case 0:
			return []int64{r.Int64() - r.Int64(), int64(r.IntN(100)), math.MaxInt64, math.MinInt64, 0}[r.IntN(5)]
		case 1:
			switch r.IntN(4) {
			case 0:
				return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
			case 1:
				return float64(r.IntN(1000)) / 8
			case 2:
				return json.Number(strconv.Itoa(r.IntN(1000) - 500)) // an integer in a float column
			}
			return json.Number("1.5E+3")
		case 2:
			return r.IntN(2) == 0
		case 3, 5:
			runes := []rune{'a', 'é', '中', '😀', '"', '\\', '/', '\n', '\t', 0, 0x1f, '<', '&', 0x2028}
			var s strings.Builder
			for j := r.IntN(12); j > 0; j-- {
				s.WriteRune(runes[r.IntN(len(runes))])
			}
			if r.IntN(3) == 0 {
				// the same text escaped by hand, as \uXXXX (pairs for astral runes)
				return json.RawMessage(asciiEscape(s.String()))
			}
			return s.String()
		}
		// k4: anything, kept as text when not a string
		return []any{map[string]any{"x": []any{1, "y", nil, map[string]any{}}}, []any{}, 12.5, true, "s"}[r.IntN(5)]
	}
	for i := 0; i < n; i++ {
		if r.IntN(20) == 0 {
			ws()
			b.WriteByte('\n') // a blank line
		}
		ws()
		b.WriteByte('{')
		ws()
		keys := r.Perm(7)[:r.IntN(8)%8]
		if len(keys) > 0 && r.IntN(10) == 0 {
			keys = append(keys, keys[0]) // a key twice
		}
		for j, k := range keys {
			if j > 0 {
				b.WriteByte(',')
				ws()
			}
			name := "k" + strconv.Itoa(k)
			if k == 6 {
				name = "unknown"
			}
			kb, _ := json.Marshal(name)
			b.Write(kb)
			ws()
			b.WriteByte(':')
			ws()
			vb, err := json.Marshal(value(k % 6))
			if err != nil {
				panic(err)
			}
			b.Write(vb)
			ws()
		}
		b.WriteByte('}')
		ws()
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// asciiEscape writes s as a JSON string with every non-ASCII rune escaped.
func asciiEscape(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r >= 0x7f:
			if r >= 0x10000 {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04X`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
				continue
			}
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var quickSchema = jsonl.Schema{
	{Name: "k0", Type: jsonl.Int64}, {Name: "k1", Type: jsonl.Float64}, {Name: "k2", Type: jsonl.Bool},
	{Name: "k3", Type: jsonl.String, Dictionary: true}, {Name: "k4", Type: jsonl.String}, {Name: "k5", Type: jsonl.String},
}

// reference parses data the obvious way, with encoding/json.
func reference(t *testing.T, data []byte) [][]any {
	var out [][]any
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.Trim(line, " \t\r")) == 0 {
			continue
		}
		var obj map[string]json.RawMessage // a key twice: the last wins
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatalf("reference: %v in %q", err, line)
		}
		row := make([]any, len(quickSchema))
		for c, col := range quickSchema {
			raw, ok := obj[col.Name]
			if !ok || string(raw) == "null" {
				continue
			}
			var err error
			switch col.Type {
			case jsonl.Int64:
				row[c], err = strconv.ParseInt(string(raw), 10, 64)
			case jsonl.Float64:
				row[c], err = strconv.ParseFloat(string(raw), 64)
			case jsonl.Bool:
				row[c] = string(raw) == "true"
			default:
				if raw[0] == '"' {
					var s string
					err = json.Unmarshal(raw, &s)
					row[c] = s
				} else {
					row[c] = string(raw)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, row)
	}
	return out
}

// Parse agrees with encoding/json on random lines.
func TestParseMatchesReference(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		data := randomLines(r, 1+r.IntN(300))
		want := reference(t, data)
		rec, err := jsonl.Parse(data, quickSchema, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got := iotest.RowsOf(rec)
		rec.Release()
		if len(want) == 0 {
			want = [][]any{}
		}
		if !reflect.DeepEqual(got, want) {
			for i := range want {
				if i < len(got) && !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("seed %d row %d:\n got %#v\nwant %#v", seed, i, got[i], want[i])
				}
			}
			t.Fatalf("seed %d: %d rows, want %d", seed, len(got), len(want))
		}
	}
}

// FuzzParse checks that Parse never panics, and, with string columns that
// take any value, fails exactly when a line is not a valid JSON object.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":"x"}`, `{"a":{"b":[1,2,{"c":null}]}}`, `{"a":"\ud83d\ude00\u00e9"}`, "{}\n\n{\"b\":true}",
		`{"a":1e5,"b":-0.5}`, `{"a":"\"}`, `[1]`, `{"a":01}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", `{"a" 1}`, `{"a":1,}`,
	} {
		f.Add([]byte(s))
	}
	r := rand.New(rand.NewPCG(1, 2))
	f.Add(randomLines(r, 20))
	schema := jsonl.Schema{{Name: "a", Type: jsonl.String}, {Name: "b", Type: jsonl.String, Dictionary: true}}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer iotest.NoHang(data)()
		if !utf8.Valid(data) || bytes.Count(data, []byte{'['})+bytes.Count(data, []byte{'{'}) > 900 {
			return // encoding/json lets invalid UTF-8 through and nests deeper
		}
		valid := true
		// A byte order mark at the start is skipped, as the parser documents.
		for _, line := range bytes.Split(bytes.TrimPrefix(data, []byte("\ufeff")), []byte{'\n'}) {
			line = bytes.Trim(line, " \t\r")
			if len(line) > 0 && (line[0] != '{' || !json.Valid(line)) {
				valid = false
			}
		}
		var err error
		memcheck.Check(t, data, func() int64 {
			var rec arrow.Record
			if rec, err = jsonl.Parse(data, schema, nil); err != nil {
				return 0
			}
			defer rec.Release()
			return memcheck.RecordBytes(rec)
		})
		if (err == nil) != valid {
			t.Fatalf("Parse(%q) err = %v, but encoding/json says valid = %v", data, err, valid)
		}
		_, ierr := jsonl.Infer(data)
		if (ierr == nil) != valid {
			t.Fatalf("Infer(%q) err = %v, but encoding/json says valid = %v", data, ierr, valid)
		}
	})
}

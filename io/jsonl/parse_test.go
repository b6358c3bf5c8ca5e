package jsonl_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/duskdata/dusk/io/internal/iotest"
	"github.com/duskdata/dusk/io/jsonl"
)

var mixedSchema = jsonl.Schema{
	{Name: "i", Type: jsonl.Int64}, {Name: "f", Type: jsonl.Float64}, {Name: "b", Type: jsonl.Bool},
	{Name: "s", Type: jsonl.String}, {Name: "d", Type: jsonl.String, Dictionary: true},
}

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		schema jsonl.Schema
		cols   []string
		types  []string
		want   [][]any
	}{
		{
			name:   "values, nulls and missing keys",
			data:   "{\"i\":1,\"f\":1.5,\"b\":true,\"s\":\"x\",\"d\":\"p\"}\n{\"i\":null,\"f\":null,\"b\":null,\"s\":null,\"d\":null}\n{}\n{\"d\":\"p\",\"i\":-7}",
			schema: mixedSchema,
			types:  []string{"int64", "float64", "bool", "utf8", "dict"},
			want: [][]any{
				{int64(1), 1.5, true, "x", "p"},
				{nil, nil, nil, nil, nil},
				{nil, nil, nil, nil, nil},
				{int64(-7), nil, nil, nil, "p"},
			},
		},
		{
			name:   "unknown keys skipped, blank lines and spaces",
			data:   "\n  { \"x\" : {\"deep\":[1,2,{\"z\":\"}\"}]} , \"i\" : 3 , \"y\":[\"a\",null] }  \r\n\n\t\n{\"i\":4,\"n\":-0.5e-3}\r\n",
			schema: jsonl.Schema{{Name: "i", Type: jsonl.Int64}},
			types:  []string{"int64"},
			want:   [][]any{{int64(3)}, {int64(4)}},
		},
		{
			name:   "escapes and unicode",
			data:   `{"s":"a\"b\\c\/d\n\t\r\b\f"}` + "\n" + `{"s":"\u00e9\u4e2d\ud83d\ude00 é中😀"}` + "\n" + `{"s":"lone \ud800 x"}` + "\n" + `{"s":""}`,
			schema: jsonl.Schema{{Name: "s", Type: jsonl.String}},
			types:  []string{"utf8"},
			want:   [][]any{{"a\"b\\c/d\n\t\r\b\f"}, {"é中😀 é中😀"}, {"lone \ufffd x"}, {""}},
		},
		{
			name:   "nested values and other kinds kept as JSON text in string columns",
			data:   `{"s":{"a": [1, {"b":null}]}}` + "\n" + `{"s":[ ]}` + "\n" + `{"s":12.50}` + "\n" + `{"s":true}`,
			schema: jsonl.Schema{{Name: "s", Type: jsonl.String}},
			types:  []string{"utf8"},
			want:   [][]any{{`{"a": [1, {"b":null}]}`}, {"[ ]"}, {"12.50"}, {"true"}},
		},
		{
			name:   "numbers",
			data:   `{"i":9223372036854775807,"f":1e308}` + "\n" + `{"i":-9223372036854775808,"f":-0.000001}` + "\n" + `{"i":0,"f":3}` + "\n" + `{"i":123456789012345678,"f":0.1234567890123456789}`,
			schema: jsonl.Schema{{Name: "i", Type: jsonl.Int64}, {Name: "f", Type: jsonl.Float64}},
			types:  []string{"int64", "float64"},
			want: [][]any{
				{int64(math.MaxInt64), 1e308}, {int64(math.MinInt64), -0.000001}, {int64(0), 3.0},
				{int64(123456789012345678), 0.1234567890123456789},
			},
		},
		{
			name:   "projection keeps schema order",
			data:   `{"i":1,"f":2.5,"b":false,"s":"x","d":"y"}` + "\n" + `{"d":"y"}`,
			schema: mixedSchema,
			cols:   []string{"d", "i"},
			types:  []string{"int64", "dict"},
			want:   [][]any{{int64(1), "y"}, {nil, "y"}},
		},
		{
			name:   "skipped columns are still checked for syntax only",
			data:   `{"i":1,"f":"not a float"}`,
			schema: mixedSchema,
			cols:   []string{"i"},
			types:  []string{"int64"},
			want:   [][]any{{int64(1)}},
		},
		{
			name:   "a key given twice keeps its last value",
			data:   `{"s":"first","s":"second","i":1,"i":null,"d":"a","d":"b"}` + "\n" + `{"s":null,"s":"x"}`,
			schema: jsonl.Schema{{Name: "i", Type: jsonl.Int64}, {Name: "s", Type: jsonl.String}, {Name: "d", Type: jsonl.String, Dictionary: true}},
			types:  []string{"int64", "utf8", "utf8"}, // "a" went into the dictionary too: 2 values in 2 rows
			want:   [][]any{{nil, "second", "b"}, {nil, "x", nil}},
		},
		{
			name:   "key order changes between lines",
			data:   "{\"a\":1,\"b\":2}\n{\"b\":3,\"a\":4}\n{\"z\":0,\"b\":5}\n{\"a\":6,\"b\":7}",
			schema: jsonl.Schema{{Name: "a", Type: jsonl.Int64}, {Name: "b", Type: jsonl.Int64}},
			types:  []string{"int64", "int64"},
			want:   [][]any{{int64(1), int64(2)}, {int64(4), int64(3)}, {nil, int64(5)}, {int64(6), int64(7)}},
		},
		{
			name:   "a byte order mark and CRLF line ends",
			data:   "\ufeff{\"i\":1}\r\n{\"i\":2}\r\n",
			schema: jsonl.Schema{{Name: "i", Type: jsonl.Int64}},
			types:  []string{"int64"},
			want:   [][]any{{int64(1)}, {int64(2)}},
		},
		{
			name:   "empty data",
			data:   "",
			schema: mixedSchema,
			types:  []string{"int64", "float64", "bool", "utf8", "dict"},
			want:   [][]any{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := jsonl.Parse([]byte(tt.data), tt.schema, tt.cols)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			if got := iotest.TypesOf(rec); !reflect.DeepEqual(got, tt.types) {
				t.Errorf("types = %v, want %v", got, tt.types)
			}
			if got := iotest.RowsOf(rec); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rows = %v, want %v", got, tt.want)
			}
			for _, f := range rec.Schema().Fields() {
				if !f.Nullable {
					t.Errorf("field %s is not nullable", f.Name)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	schema := jsonl.Schema{{Name: "v1", Type: jsonl.Int64}, {Name: "f", Type: jsonl.Float64}, {Name: "b", Type: jsonl.Bool}, {Name: "s", Type: jsonl.String}}
	tests := []struct {
		name, data, want string
	}{
		{"int gets string", "{\"v1\":1}\n\n{\"v1\":\"abc\"}", `line 3 column v1: want int64, got string "abc"`},
		{"int gets float", `{"v1":1.5}`, `line 1 column v1: want int64, got number 1.5`},
		{"int out of range", `{"v1":9223372036854775808}`, `line 1 column v1: want int64, got number 9223372036854775808, out of int64's range`},
		{"float gets bool", `{"f":true}`, `line 1 column f: want float64, got bool true`},
		{"bool gets number", `{"b":1}`, `line 1 column b: want bool, got number 1`},
		{"bool gets object", `{"b":{"x":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}}`, `line 1 column b: want bool, got object {"x":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,1...`},
		{"not an object", `"x"`, `line 1: want a JSON object, got string "x"`},
		{"unclosed string", `{"s":"abc`, `line 1 column s: the line ends inside a string at byte 6`},
		{"unclosed object", `{"s":"abc"`, `line 1: the line ends where ',' or '}' after a value should be at byte 11`},
		{"object across lines", "{\"s\":\n\"abc\"}", `line 1 column s: the line ends where a value should be at byte 6`},
		{"missing colon", `{"s" "x"}`, `line 1: unexpected '"' where ':' after a key should be at byte 6`},
		{"missing key", `{"s":"x",}`, `line 1: unexpected '}' where a key in quotes should be at byte 10`},
		{"unquoted key", `{s:1}`, `line 1: unexpected 's' where a key in quotes should be at byte 2`},
		{"bad escape", `{"s":"a\x"}`, `line 1 column s: invalid escape 'x' at byte 8`},
		{"bad unicode escape", `{"s":"a\u12"}`, `line 1 column s: a \u escape without four hex digits at byte 8`},
		{"control character", "{\"s\":\"a\tb\"}", `line 1 column s: a control character (0x09) inside a string; JSON requires it escaped at byte 8`},
		{"invalid utf8", "{\"s\":\"a\xffb\"}", `line 1 column s: invalid UTF-8 in a string at byte 6`},
		{"leading zero", `{"v1":012}`, `line 1 column v1: a number with a leading zero at byte 7`},
		{"bare minus", `{"f":-}`, `line 1 column f: invalid number at byte 6`},
		{"point without digits", `{"f":1.}`, `line 1 column f: a number without digits after its point at byte 6`},
		{"NaN", `{"f":NaN}`, `line 1 column f: unexpected 'N' where a value should be at byte 6`},
		{"bad literal", `{"b":tru}`, `line 1 column b: invalid literal tru} (want true) at byte 6`},
		{"two objects", `{"b":true}{"b":false}`, `line 1: unexpected '{' after the object; each line holds one object at byte 11`},
		{"bad nested value in unknown key", `{"x":[1,}`, `line 1: unexpected '}' where a value should be at byte 9`},
		{"too deep", `{"x":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`, `line 1: objects and arrays nested more than 1000 deep at byte 1006`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := jsonl.Parse([]byte(tt.data), schema, nil)
			if err == nil {
				rec.Release()
				t.Fatalf("no error, want %q", tt.want)
			}
			var pe *jsonl.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T), want a *ParseError", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %q\n           want %q", err, tt.want)
			}
		})
	}
}

func TestParseBadArguments(t *testing.T) {
	tests := []struct {
		name   string
		schema jsonl.Schema
		cols   []string
		want   string
	}{
		{"unknown type", jsonl.Schema{{Name: "a", Type: "binary"}}, nil, `jsonl: column a: unknown type "binary" (want int64, float64, string, bool or another type as Arrow names it, such as date32, timestamp[us] or int32)`},
		{"name twice", jsonl.Schema{{Name: "a", Type: jsonl.Int64}, {Name: "a", Type: jsonl.Bool}}, nil, `jsonl: column "a" appears twice in the schema`},
		{"unknown projection", jsonl.Schema{{Name: "a", Type: jsonl.Int64}}, []string{"b"}, `jsonl: column "b" is not in the schema; the columns are ["a"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jsonl.Parse([]byte(`{"a":1}`), tt.schema, tt.cols)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// A dictionary column whose values turn out mostly distinct comes out plain;
// one with few values stays a dictionary, nulls included.
func TestParseDictionaryFallback(t *testing.T) {
	var b strings.Builder
	n := 10000
	for i := 0; i < n; i++ {
		switch {
		case i%7 == 0:
			b.WriteString(`{"few":null,"many":null}` + "\n")
		default:
			b.WriteString(`{"few":"k` + string(rune('a'+i%5)) + `","many":"v` + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + itoa(i) + `"}` + "\n")
		}
	}
	schema := jsonl.Schema{{Name: "few", Type: jsonl.String, Dictionary: true}, {Name: "many", Type: jsonl.String, Dictionary: true}}
	rec, err := jsonl.Parse([]byte(b.String()), schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if got := iotest.TypesOf(rec); !reflect.DeepEqual(got, []string{"dict", "utf8"}) {
		t.Errorf("types = %v", got)
	}
	rows := iotest.RowsOf(rec)
	for i := 0; i < n; i++ {
		var few, many any
		if i%7 != 0 {
			few = "k" + string(rune('a'+i%5))
			many = "v" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + itoa(i)
		}
		if rows[i][0] != few || rows[i][1] != many {
			t.Fatalf("row %d = %v, want [%v %v]", i, rows[i], few, many)
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestStrictNamesUnknownKeys(t *testing.T) {
	schema := jsonl.Schema{{Name: "a", Type: jsonl.Int64}, {Name: "b", Type: jsonl.String}}
	rec, err := jsonl.Strict([]byte("{\"a\":1,\"b\":\"x\"}\n{\"b\":\"y\"}\n"), schema)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	_, err = jsonl.Strict([]byte("{\"a\":1}\n{\"a\":2,\"c\":[1,2]}\n"), schema)
	if err == nil || err.Error() != `line 2: key "c" is not among the columns ["a" "b"]` {
		t.Fatalf("unknown key: %v", err)
	}
}

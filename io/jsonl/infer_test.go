package jsonl_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/duskdata/dusk/io/jsonl"
)

func TestInfer(t *testing.T) {
	tests := []struct {
		name   string
		sample string
		want   jsonl.Schema
	}{
		{
			name:   "one of each",
			sample: `{"i":1,"f":1.5,"b":true,"s":"x","o":{"a":1},"a":[1,2]}` + "\n",
			want: jsonl.Schema{
				{Name: "i", Type: jsonl.Int64}, {Name: "f", Type: jsonl.Float64}, {Name: "b", Type: jsonl.Bool},
				{Name: "s", Type: jsonl.String, Dictionary: true}, {Name: "o", Type: jsonl.String, Dictionary: true},
				{Name: "a", Type: jsonl.String, Dictionary: true},
			},
		},
		{
			name:   "union of keys in first-seen order",
			sample: "{\"a\":1}\n{\"b\":2,\"a\":3}\n\n{\"c\":4}",
			want:   jsonl.Schema{{Name: "a", Type: jsonl.Int64}, {Name: "b", Type: jsonl.Int64}, {Name: "c", Type: jsonl.Int64}},
		},
		{
			name:   "int then float is float",
			sample: "{\"v\":1}\n{\"v\":2.5}\n{\"v\":null}\n",
			want:   jsonl.Schema{{Name: "v", Type: jsonl.Float64}},
		},
		{
			name:   "exponent is float",
			sample: "{\"v\":1}\n{\"v\":1e3}\n",
			want:   jsonl.Schema{{Name: "v", Type: jsonl.Float64}},
		},
		{
			name:   "integer beyond int64 is float",
			sample: "{\"v\":1}\n{\"v\":123456789012345678901234}\n",
			want:   jsonl.Schema{{Name: "v", Type: jsonl.Float64}},
		},
		{
			name:   "number and string is string",
			sample: "{\"v\":1}\n{\"v\":\"x\"}\n",
			want:   jsonl.Schema{{Name: "v", Type: jsonl.String, Dictionary: true}},
		},
		{
			name:   "bool and number is string",
			sample: "{\"v\":true}\n{\"v\":0}\n",
			want:   jsonl.Schema{{Name: "v", Type: jsonl.String, Dictionary: true}},
		},
		{
			name:   "only null is string",
			sample: "{\"v\":null}\n{\"v\":null,\"w\":false}\n",
			want:   jsonl.Schema{{Name: "v", Type: jsonl.String}, {Name: "w", Type: jsonl.Bool}},
		},
		{
			name:   "nested is string",
			sample: "{\"v\":{\"x\":[1,{\"y\":null}]}}\n{\"v\":[]}\n",
			want:   jsonl.Schema{{Name: "v", Type: jsonl.String, Dictionary: true}},
		},
		{
			name:   "escaped key",
			sample: `{"a\u0062":1, "\"q\"" : 2}`,
			want:   jsonl.Schema{{Name: "ab", Type: jsonl.Int64}, {Name: `"q"`, Type: jsonl.Int64}},
		},
		{
			name:   "empty",
			sample: "\n  \n",
			want:   jsonl.Schema{},
		},
		{
			name:   "empty objects",
			sample: "{}\n{ }\n",
			want:   jsonl.Schema{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonl.Infer([]byte(tt.sample))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Infer = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Many distinct strings in a sample are not worth a dictionary.
func TestInferDictionary(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString(`{"few":"` + []string{"a", "b", "c"}[i%3] + `","many":"v` + strings.Repeat("x", i) + `"}` + "\n")
	}
	got, err := jsonl.Infer([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	want := jsonl.Schema{{Name: "few", Type: jsonl.String, Dictionary: true}, {Name: "many", Type: jsonl.String}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Infer = %+v, want %+v", got, want)
	}
}

func TestInferErrors(t *testing.T) {
	tests := []struct {
		name, sample, want string
	}{
		{"not an object", "{\"a\":1}\n[1,2]\n", "line 2: want a JSON object, got array [1,2]"},
		{"bad value", "{\"a\":1}\n\n{\"a\":tru}\n", "line 3 column a: invalid literal tru} (want true) at byte 6"},
		{"unclosed", `{"a":1`, "line 1: the line ends where ',' or '}' after a value should be at byte 7"},
		{"trailing", `{"a":1} x`, "line 1: unexpected 'x' after the object; each line holds one object at byte 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jsonl.Infer([]byte(tt.sample))
			var pe *jsonl.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %q, want %q", err, tt.want)
			}
		})
	}
}

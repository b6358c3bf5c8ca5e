package graph

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestGolden runs the rewrites in testdata/*.txt and compares their plans
// with the text below each directive; -rewrite regenerates that text.
//
//	graph          the tasks, one a line: "key = op(input, ...) [res=n]"
//	cull keys=(k,...)
//	fuse keep=(k,...)
//	fuse-cull keys=(k,...)    cull, then fuse keeping the keys
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var g *Graph
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			keys := func(name string) []Key {
				var ks []Key
				if arg, ok := d.Arg(name); ok {
					for _, v := range arg.Vals {
						ks = append(ks, Key(v))
					}
				}
				return ks
			}
			switch d.Cmd {
			case "graph":
				var err error
				if g, err = parseGraph(d.Input); err != nil {
					d.Fatalf(t, "%v", err)
				}
				return ""
			case "cull":
				return Cull(g, keys("keys")).String()
			case "fuse":
				return Fuse(g, keys("keep")).String()
			case "fuse-cull":
				return Fuse(Cull(g, keys("keys")), keys("keys")).String()
			}
			d.Fatalf(t, "unknown directive %q", d.Cmd)
			return ""
		})
	})
}

// parseGraph reads the format Graph.String prints, for unfused tasks. Ops
// named transfer, barrier and unpack are those roles of a shuffle.
func parseGraph(s string) (*Graph, error) {
	g := New()
	for n, line := range strings.Split(strings.TrimSpace(s), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, rest, ok := strings.Cut(line, " = ")
		open, close := strings.IndexByte(rest, '('), strings.IndexByte(rest, ')')
		if !ok || open < 0 || close < open {
			return nil, fmt.Errorf("line %d: want \"key = op(inputs)\", got %q", n+1, line)
		}
		t := &Task{Key: Key(key), Op: rest[:open]}
		for _, role := range []ShuffleRole{Transfer, Barrier, Unpack} {
			if t.Op == role.String() {
				t.Shuffle = &Shuffle{ID: "s", Role: role}
			}
		}
		for _, in := range strings.Split(rest[open+1:close], ",") {
			if in = strings.TrimSpace(in); in != "" {
				t.Inputs = append(t.Inputs, Key(in))
			}
		}
		if res := strings.TrimSpace(rest[close+1:]); res != "" {
			t.Resources = Resources{}
			for _, kv := range strings.Split(strings.Trim(res, "[]"), ",") {
				name, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: resource %q: %w", n+1, kv, err)
				}
				t.Resources[name] = f
			}
		}
		g.Add(t)
	}
	return g, nil
}

func TestNameIsDeterministicAndSensitive(t *testing.T) {
	base := Name("filter", "df-filter", []byte(`{"x":1}`), "read-aa")
	tests := []struct {
		name   string
		got    string
		differ bool
	}{
		{"same work", Name("filter", "df-filter", []byte(`{"x":1}`), "read-aa"), false},
		{"other args", Name("filter", "df-filter", []byte(`{"x":2}`), "read-aa"), true},
		{"other op", Name("filter", "df-select", []byte(`{"x":1}`), "read-aa"), true},
		{"other input", Name("filter", "df-filter", []byte(`{"x":1}`), "read-ab"), true},
		{"moved boundary", Name("filter", "df-filter", []byte(`{"x":1}r`), "ead-aa"), true},
	}
	for _, tt := range tests {
		if (tt.got != base) != tt.differ {
			t.Errorf("%s: %s vs %s, want differ=%v", tt.name, tt.got, base, tt.differ)
		}
	}
	if !strings.HasPrefix(base, "filter-") || len(base) != len("filter-")+tokenLen {
		t.Errorf("name %q: want filter-<%d hex digits>", base, tokenLen)
	}
}

func TestKeyPrefix(t *testing.T) {
	tok := "3f9a1c0b7d2e4a91"
	tests := []struct{ key, want string }{
		{"groupby-sum-" + tok + "-7", "groupby-sum"},
		{"inc-" + tok, "inc"},
		{"inc-1234567890123456", "inc"},
		{"plain", "plain"},
		{"no-token-7", "no-token"},
		{"-7", "-7"},
		{Part("read-csv-"+tok, 12).String(), "read-csv"},
		{"array-sum-" + tok + "-combine0-0", "array-sum-combine0"},
		{"shuffle-" + tok + "-unpack-" + tok + "-3", "shuffle-unpack"},
		{"a-1-b-2", "a-b"},
		{tok, tok},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Key(tt.key).Prefix(); got != tt.want {
			t.Errorf("Key(%q).Prefix() = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestKeyPartition(t *testing.T) {
	tok := "3f9a1c0b7d2e4a91"
	tests := []struct {
		key  string
		want int
		ok   bool
	}{
		{"groupby-sum-" + tok + "-7", 7, true},
		{"inc-" + tok, 0, false},
		{"no-token-7", 0, false},
		{"-7", 0, false},
		{Part("read-csv-"+tok, 12).String(), 12, true},
	}
	for _, tt := range tests {
		if got, ok := Key(tt.key).Partition(); got != tt.want || ok != tt.ok {
			t.Errorf("Key(%q).Partition() = %d, %v, want %d, %v", tt.key, got, ok, tt.want, tt.ok)
		}
	}
}

func TestResourcesString(t *testing.T) {
	r := Resources{"memory": 2e9, "GPU": 1, "cpu": 0.5}
	if got, want := r.String(), "GPU=1, cpu=0.5, memory=2000000000"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

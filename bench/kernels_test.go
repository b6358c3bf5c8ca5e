package bench_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duskdata/dusk/bench"
)

// TestKernelsSuite runs `dusk bench kernels` on a few kernels: the machine
// line, the floor and each chosen kernel in the table and in --json.
func TestKernelsSuite(t *testing.T) {
	js := filepath.Join(t.TempDir(), "k.json")
	var out, errs bytes.Buffer
	err := bench.Main(context.Background(), []string{"kernels", "--kernels", "^(sum-float/groups=4|hash/1-key)$", "--json", js}, &out, &errs, connect)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	text := out.String()
	for _, want := range []string{"machine: ", "x copy", "\ncopy ", "\nsum-float/groups=4 ", "\nhash/1-key "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	f, err := os.Open(js)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r bench.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Suite != "kernels" || r.Seconds <= 0 || r.BytesPerSec <= 0 || r.Machine == "" {
			t.Errorf("result %+v", r)
		}
		names = append(names, r.Question)
	}
	if strings.Join(names, ",") != "copy,sum-float/groups=4,hash/1-key" {
		t.Errorf("--json kernels %q", names)
	}
	if err := bench.Main(context.Background(), []string{"kernels", "--kernels", "("}, &out, &errs, connect); err == nil || !strings.Contains(err.Error(), "--kernels") {
		t.Errorf("a bad --kernels: %v", err)
	}
}

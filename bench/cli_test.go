package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench"
)

// connect starts a local cluster, as cmd/dusk's does.
func connect(ctx context.Context, workers int, _ string) (context.Context, func(), error) {
	c, err := dusk.NewClient(ctx, dusk.Workers(workers))
	if err != nil {
		return nil, nil, err
	}
	return dusk.WithClient(ctx, c), func() { c.Close() }, nil
}

// TestCLI runs `dusk bench` gen, groupby, join and compare on a small table
// and checks each answer's rows and checksum against the plain-Go reference.
func TestCLI(t *testing.T) {
	const n = 10_000
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	run := func(args ...string) string {
		t.Helper()
		var out, errs bytes.Buffer
		if err := bench.Main(ctx, args, &out, &errs, connect); err != nil {
			t.Fatalf("dusk bench %s: %v\n%s", strings.Join(args, " "), err, errs.String())
		}
		return out.String()
	}

	run("gen", "--rows", "1e4", "--data", data)
	jnames := bench.JoinFileNames(n)
	want := append([]string{bench.GroupByFileName(n, 100)}, jnames[:]...)
	if got := bench.JoinFileNames(n); got != [4]string{"J1_1e4_NA_0_0.csv", "J1_1e4_1e1_0_0.csv", "J1_1e4_1e2_0_0.csv", "J1_1e4_1e4_0_0.csv"} {
		t.Errorf("join file names %q", got)
	}
	for _, name := range want {
		if _, err := os.Stat(filepath.Join(data, name)); err != nil {
			t.Errorf("gen wrote no %s: %v", name, err)
		}
	}

	gtable := bench.NewGroupByTable(n, 100, 1)
	refs := map[string]bench.Answer{}
	for _, q := range bench.GroupByQuestions {
		refs["groupby/"+q.ID] = q.Ref(gtable)
	}
	jtables := bench.GenJoin(n, 1)
	for _, q := range bench.JoinQuestions {
		refs["join/"+q.ID] = q.Ref(jtables)
	}

	for _, suite := range []string{"groupby", "join"} {
		js := filepath.Join(dir, suite+".json")
		out := run(suite, "--rows", "10000", "--data", data, "--json", js, "--workers", "2")
		t.Logf("%s:\n%s", suite, out)
		if !strings.HasPrefix(out, "question") || !strings.Contains(out, "checksum") {
			t.Errorf("%s table has no header:\n%s", suite, out)
		}
		results, err := bench.ReadResults(js)
		if err != nil {
			t.Fatal(err)
		}
		questions := len(bench.GroupByQuestions)
		if suite == "join" {
			questions = len(bench.JoinQuestions)
		}
		if len(results) != 1+2*questions {
			t.Fatalf("%s: %d results, want load and 2 runs of %d questions", suite, len(results), questions)
		}
		if r := results[0]; r.Question != "load" || r.Rows != n {
			t.Errorf("%s: first result %+v, want load of %d rows", suite, r, n)
		}
		for _, r := range results[1:] {
			if r.Suite != suite || r.Run < 1 || r.Run > 2 || r.Seconds <= 0 || r.PeakRSSBytes <= 0 {
				t.Errorf("bad result %+v", r)
			}
			ref, ok := refs[suite+"/"+r.Question]
			if !ok {
				t.Errorf("result of unknown question %+v", r)
				continue
			}
			if r.Rows != int64(len(ref.Rows)) {
				t.Errorf("%s %s run %d: %d rows, reference %d", suite, r.Question, r.Run, r.Rows, len(ref.Rows))
			}
			if err := sameSums(r.Checksum, ref.Checksum()); err != nil {
				t.Errorf("%s %s run %d: checksum %v, reference %v: %v", suite, r.Question, r.Run, r.Checksum, ref.Checksum(), err)
			}
		}
	}

	out := run("compare", filepath.Join(dir, "groupby.json"), filepath.Join(dir, "groupby.json"))
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2+2*len(bench.GroupByQuestions) {
		t.Errorf("compare printed %d lines:\n%s", len(lines), out)
	}
	if !strings.Contains(out, "groupby  q1        1") || strings.Count(out, " 1.00\n") != 1+2*len(bench.GroupByQuestions) {
		t.Errorf("compare of a file with itself:\n%s", out)
	}
}

func sameSums(got, want []float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d sums, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9*max(math.Abs(want[i]), 1) {
			return fmt.Errorf("sum %d differs", i)
		}
	}
	return nil
}

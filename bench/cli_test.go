package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/gpu"
)

// connect starts a local cluster, as cmd/dusk's does.
func connect(ctx context.Context, cl bench.Cluster) (*bench.Session, error) {
	opts := []dusk.Option{dusk.Workers(cl.Workers)}
	if cl.MemoryLimit > 0 {
		opts = append(opts, dusk.MemoryLimit(cl.MemoryLimit))
	}
	c, err := dusk.NewClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	spilled := func(ctx context.Context) (out, in int64, err error) {
		ws, err := c.Workers(ctx)
		for _, w := range ws {
			out += w.Memory.SpilledTotal
			in += w.Memory.UnspilledTotal
		}
		return out, in, err
	}
	return &bench.Session{Ctx: dusk.WithClient(ctx, c), Close: func() { c.Close() }, Spilled: spilled}, nil
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
		for _, file := range []string{name, strings.TrimSuffix(name, ".csv") + ".parquet"} {
			if _, err := os.Stat(filepath.Join(data, file)); err != nil {
				t.Errorf("gen wrote no %s: %v", file, err)
			}
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
		if !strings.HasPrefix(out, "machine: ") || !strings.Contains(out, "\nquestion") || !strings.Contains(out, "checksum") {
			t.Errorf("%s table has no machine line and header:\n%s", suite, out)
		}
		results, err := bench.ReadResults(js)
		if err != nil {
			t.Fatal(err)
		}
		if len(results) > 0 && !strings.Contains(results[0].Machine, "cores") {
			t.Errorf("%s: the JSON lines do not name the machine: %q", suite, results[0].Machine)
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

// TestSuites runs the tasks, shuffle, spill, io and bigsum suites small and
// checks what they report against what the data must give.
func TestSuites(t *testing.T) {
	const n = 10_000
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	js := filepath.Join(dir, "all.json")
	for _, suite := range []string{"tasks", "shuffle", "spill", "io", "bigsum"} {
		var out, errs bytes.Buffer
		if err := bench.Main(ctx, []string{suite, "--rows", "1e4", "--data", dir, "--json", js, "--workers", "2"}, &out, &errs, connect); err != nil {
			t.Fatalf("dusk bench %s: %v\n%s", suite, err, errs.String())
		}
		t.Logf("%s:\n%s", suite, out.String())
	}
	results, err := bench.ReadResults(js)
	if err != nil {
		t.Fatal(err)
	}
	table := bench.NewGroupByTable(n, 100, 1)
	var v1, v2, v3 float64
	for i := range n {
		v1, v2, v3 = v1+float64(table.V1[i]), v2+float64(table.V2[i]), v3+table.V3[i]
	}
	steps := map[string]int{}
	var bigsum, sliced []float64
	for _, r := range results {
		steps[r.Suite+"/"+r.Question]++
		if r.Seconds <= 0 || r.Run < 1 || r.Run > 2 {
			t.Errorf("bad result %+v", r)
		}
		switch r.Suite + "/" + r.Question {
		case "tasks/tasks":
			if r.TasksPerSec <= 0 || len(r.Checksum) != 1 || r.Checksum[0] != n/100 || r.Rows < n/100 {
				t.Errorf("tasks: %+v, want %d tasks adding up to %d", r, n/100, n/100)
			}
		case "shuffle/shuffle":
			if err := sameSums(r.Checksum, []float64{v1, v2, v3}); r.Rows != n || r.BytesPerSec <= 0 || err != nil {
				t.Errorf("shuffle: %+v, want %d rows and sums %v %v %v", r, n, v1, v2, v3)
			}
		case "shuffle/sort":
			if err := sameSums(r.Checksum, []float64{v3, v1, v2}); r.Rows != n || err != nil {
				t.Errorf("sort: %+v, want %d rows and sums %v %v %v", r, n, v3, v1, v2)
			}
		case "spill/read":
			// n×8 uniform [0,1) values: mean 0.5, standard deviation of the sum about 26.
			if r.Rows != n*8 || len(r.Checksum) != 1 || math.Abs(r.Checksum[0]-n*4) > 500 {
				t.Errorf("spill: %+v, want a sum near %d", r, n*4)
			}
		case "bigsum/sum":
			if len(r.Checksum) != 1 || math.Abs(r.Checksum[0]-float64(r.Rows)/2) > 0.01*float64(r.Rows) {
				t.Errorf("bigsum: %+v, want a sum near %d", r, r.Rows/2)
			}
			bigsum = append(bigsum, r.Checksum...)
		case "bigsum/sum-slices":
			sliced = append(sliced, r.Checksum...)
		}
		if r.Suite == "io" && (r.Rows != n || r.BytesPerSec <= 0) {
			t.Errorf("io: %+v", r)
		}
	}
	// The sum of the slices' sums is the matrix's sum, up to rounding.
	if len(bigsum) != 2 || len(sliced) != 2 || math.Abs(sliced[0]-bigsum[0]) > 1e-9*bigsum[0] {
		t.Errorf("bigsum: sums %v, of 8 row slices %v; want them equal", bigsum, sliced)
	}
	for _, step := range []string{"tasks/tasks", "shuffle/shuffle", "shuffle/sort", "spill/write", "spill/read", "io/csv-read", "io/csv-write", "io/parquet-write", "io/parquet-read", "bigsum/sum", "bigsum/sum-slices"} {
		if steps[step] != 2 {
			t.Errorf("%s ran %d times, want 2", step, steps[step])
		}
	}
}

// TestGPUSuite runs the gpu suite where a GPU is present, and checks that
// it fails with a clear error where none is.
func TestGPUSuite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	err := bench.Main(ctx, []string{"gpu", "--rows", "1e5", "--workers", "1"}, &out, &errs, connect)
	if !gpu.Available() {
		if err == nil || !strings.Contains(err.Error(), "gpu suite: gpu: ") {
			t.Fatalf("gpu suite without a GPU: %v; want an error that says there is none", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("gpu suite: %v\n%s", err, errs.String())
	}
	for _, step := range []string{"cpu", "gpu", "gpu-transfer", "gpu-kernels"} {
		if !strings.Contains(out.String(), "\n"+step+" ") {
			t.Errorf("no %s step in:\n%s", step, out.String())
		}
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

// TestScaleSuite runs the scale suite at two small sizes: each size's
// answers are the reference's, every result names its size, and the growth
// table has a row for each step and run.
func TestScaleSuite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	js := filepath.Join(dir, "scale.json")
	var out, errs bytes.Buffer
	args := []string{"scale", "--sizes", "1e4,2e4", "--questions", "q1,q3", "--data", dir, "--json", js, "--workers", "2"}
	if err := bench.Main(ctx, args, &out, &errs, connect); err != nil {
		t.Fatalf("dusk bench %s: %v\n%s", strings.Join(args, " "), err, errs.String())
	}
	t.Logf("scale:\n%s", out.String())
	results, err := bench.ReadResults(js)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]int{}
	for _, r := range results {
		steps[fmt.Sprintf("%d/%s", r.Scale, r.Question)]++
		if r.Suite != "scale" || r.Seconds <= 0 {
			t.Errorf("bad result %+v", r)
		}
		if r.Question == "load" {
			if r.Rows != r.Scale {
				t.Errorf("load of %d rows at size %d", r.Rows, r.Scale)
			}
			continue
		}
		i := slices.IndexFunc(bench.GroupByQuestions, func(q bench.Question[*bench.GroupByTable]) bool { return q.ID == r.Question })
		ref := bench.GroupByQuestions[i].Ref(bench.NewGroupByTable(int(r.Scale), 100, 1))
		if r.Rows != int64(len(ref.Rows)) {
			t.Errorf("%s at %d run %d: %d rows, reference %d", r.Question, r.Scale, r.Run, r.Rows, len(ref.Rows))
		}
		if err := sameSums(r.Checksum, ref.Checksum()); err != nil {
			t.Errorf("%s at %d run %d: %v", r.Question, r.Scale, r.Run, err)
		}
	}
	for _, n := range []int{10_000, 20_000} {
		for q, runs := range map[string]int{"load": 1, "q1": 2, "q3": 2} {
			if got := steps[fmt.Sprintf("%d/%s", n, q)]; got != runs {
				t.Errorf("%s at %d rows ran %d times, want %d", q, n, got, runs)
			}
		}
	}
	_, table, ok := strings.Cut(out.String(), "\ngrowth")
	if !ok {
		t.Fatalf("no growth table:\n%s", out.String())
	}
	if lines := strings.Split(strings.TrimSpace(table), "\n"); len(lines) != 1+5 || !strings.Contains(lines[0], "×2") {
		t.Errorf("growth table of %d lines, want a header (×2) and load, q1 and q3 twice:\n%s", len(lines), table)
	}
	for _, bad := range [][]string{{"--sizes", "1e4"}, {"--sizes", "2e4,1e4"}, {"--sizes", "1e4,x"}} {
		err := bench.Main(ctx, append([]string{"scale", "--data", dir}, bad...), &out, &errs, connect)
		if err == nil || !strings.Contains(err.Error(), "--sizes") {
			t.Errorf("scale %v: error %v, want one naming --sizes", bad, err)
		}
	}
}

// TestDataFile: --data naming a file reads that file whatever its name,
// generates nothing beside it, and refuses a file whose rows or header are
// not those of --rows' table, naming both.
func TestDataFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	gen, mine := t.TempDir(), t.TempDir()
	table, err := bench.GroupByFile(gen, 10_000, 100)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(mine, "my table.csv")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(mine, "bad.csv")
	if err := os.WriteFile(bad, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	main := func(args ...string) (string, error) {
		var out, errs bytes.Buffer
		err := bench.Main(ctx, args, &out, &errs, connect)
		return out.String(), err
	}
	out, err := main("groupby", "--rows", "1e4", "--data", file, "--questions", "q1", "--workers", "1")
	if err != nil {
		t.Fatalf("groupby on %s: %v", file, err)
	}
	if !strings.Contains(out, "load") || !strings.Contains(out, "10000") {
		t.Errorf("groupby on %s:\n%s", file, out)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"groupby", "--rows", "2e4", "--data", file}, []string{file, "holds 10000 rows", "asks for 20000"}},
		{[]string{"groupby", "--rows", "1e4", "--data", bad}, []string{bad, `"a,b"`, bench.GroupByHeader}},
		{[]string{"join", "--rows", "1e4", "--data", file, "--questions", "j1"}, []string{file, "J1_1e4_NA_0_0.csv"}},
		{[]string{"gen", "--rows", "1e4", "--data", file}, []string{file, "directory"}},
		{[]string{"scale", "--sizes", "1e4,2e4", "--data", file}, []string{file, "directory"}},
	} {
		_, err := main(append(tc.args, "--workers", "1")...)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %v, want one naming %q", tc.args, err, w)
			}
		}
	}
	entries, _ := os.ReadDir(mine)
	if len(entries) != 2 {
		t.Errorf("%s holds %d entries after the runs, want the 2 files put there", mine, len(entries))
	}
}

// CheckOrder accepts a frame sorted across its partitions, and names the
// place where one is not: within a partition, or between two.
func TestCheckOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx = dusk.WithClient(ctx, c)
	type row struct{ V float64 }
	cases := []struct {
		vals []float64
		want string // in the error; "" for none
	}{
		{[]float64{1, 2, 2, 3, 5, 8, 9, 9}, ""},
		{[]float64{1, 2, 4, 3, 5, 8, 9, 9}, "partition 1: 1 rows are smaller"},
		{[]float64{1, 2, 3, 4, 3, 8, 9, 9}, "partition 2 starts at 3, below the 4"},
	}
	for _, tc := range cases {
		var rows []row
		for _, v := range tc.vals {
			rows = append(rows, row{v})
		}
		f := dataframe.FromRecords(rows, 4)
		err := bench.CheckOrder(ctx, f)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: got %v, want %q", tc.vals, err, tc.want)
		}
	}
}

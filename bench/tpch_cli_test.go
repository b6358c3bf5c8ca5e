package bench_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/bench/tpch"
)

// TestTPCHCLI runs `dusk bench gen tpch` (into the user's cache, where
// bench/tpch's tests keep SF1 too) and `dusk bench tpch` with --persist,
// --json and --answers, and checks the lines and answers it writes.
func TestTPCHCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	data := t.TempDir()
	if c, err := os.UserCacheDir(); err == nil && os.MkdirAll(filepath.Join(c, "dusk"), 0o755) == nil {
		data = filepath.Join(c, "dusk", "tpch-sf1")
	}
	var out bytes.Buffer
	run := func(args ...string) error {
		var errs bytes.Buffer
		out.Reset()
		err := bench.Main(ctx, args, &out, &errs, connect)
		t.Logf("dusk bench %s:\n%s%s", strings.Join(args, " "), out.String(), errs.String())
		return err
	}
	if err := run("gen", "tpch", "--sf", "1", "--data", data); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	answers, jsonPath := filepath.Join(dir, "answers"), filepath.Join(dir, "tpch.json")
	if err := run("tpch", "--data", data, "--queries", "q1,q13", "--persist", "--json", jsonPath, "--answers", answers, "--workers", "2"); err != nil {
		t.Fatal(err)
	}
	var totals int
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "total ") {
			totals++
		}
	}
	if totals != 2 {
		t.Errorf("%d total lines, want one for each run:\n%s", totals, out.String())
	}
	results, err := bench.ReadResults(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, r := range results {
		steps = append(steps, r.Question)
		if r.Suite != "tpch" || r.Seconds <= 0 || r.Rows <= 0 {
			t.Errorf("result %+v: want suite tpch, seconds and rows", r)
		}
	}
	if got := strings.Join(steps, ","); got != "load,q1,q1,q13,q13" {
		t.Errorf("steps %s, want load,q1,q1,q13,q13", got)
	}
	for _, id := range []string{"q1", "q13"} {
		q := tpch.QueryNamed(id)
		header, got, err := tpch.ReadAnswer(filepath.Join(answers, tpch.AnswerFile(id)))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(header, ",") != strings.Join(q.Columns, ",") {
			t.Errorf("%s header %v, want %v", id, header, q.Columns)
		}
		_, want, err := tpch.ReadAnswer(filepath.Join("tpch", "testdata", "sf1-answers", tpch.AnswerFile(id)))
		if err != nil {
			t.Fatal(err)
		}
		if err := tpch.CompareAnswer(q, got, want); err != nil {
			t.Error(err)
		}
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "tpch", "--sf", "0.0005", "--data", dir}, "scale factor 0.0005: want a whole number of 1 or more, or thousandths below 1"},
		{[]string{"gen", "tpch", "--sf", "1.5", "--data", dir}, "scale factor 1.5: want"},
		{[]string{"tpch", "--data", data, "--queries", "q23"}, `no TPC-H query "q23"`},
		{[]string{"tpch", "--data", dir}, "no lineitem table in " + dir},
	} {
		if err := run(bad.args...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("dusk bench %s: %v, want an error with %q", strings.Join(bad.args, " "), err, bad.want)
		}
	}
}

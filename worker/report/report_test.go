package report_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/google/pprof/profile"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/worker/report"
)

// burn keeps a thread busy for a fixed amount of work (about a fifth of a
// second here), so that the profile has samples of it however loaded the
// machine is.
var burn = dusk.Register("test-burn", func(_ context.Context, seed uint64) (uint64, error) {
	return burnCPU(seed), nil
})

//go:noinline
func burnCPU(x uint64) uint64 {
	for range 200_000_000 {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

type row struct {
	K int64
	V int64
}

// A performance report of a run on a local cluster (a shuffle, results
// spilled as made, a sum across both workers, CPU-bound tasks) sums up
// what the task stream recorded of it — every task, the transfers and the
// disk writes — and holds the process's CPU profile, in which the busy
// function is found; a failed run's report says why, and the run's error
// comes back.
func TestPerformanceReport(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := dusk.NewClient(ctx, dusk.Workers(2), dusk.ThreadsPerWorker(2), dusk.MemoryLimit(256<<20),
		dusk.MemoryFractions(dusk.Fractions{Target: 1e-9, Spill: 100, Pause: 100}), dusk.Dashboard("none"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx = dusk.WithClient(ctx, c)
	if _, err := c.TaskStream(ctx); err != nil { // what ran before is not in the report
		t.Fatal(err)
	}
	if _, err := burn.Submit(ctx, 0); err != nil {
		t.Fatal(err)
	}

	rows := make([]row, 20000)
	var want int64
	for i := range rows {
		rows[i] = row{K: int64(i % 97), V: int64(i)}
		want += int64(i)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	err = dusk.PerformanceReport(ctx, path, func(ctx context.Context) error {
		tab, err := dataframe.FromRecords(rows, 8).GroupBy("K").SplitOut(4).Agg(dataframe.Sum("V").As("S")).
			Agg(dataframe.Sum("S")).Compute(ctx)
		if err != nil {
			return err
		}
		defer tab.Release()
		if got := tab.Record().Column(0).(*array.Int64).Value(0); got != want {
			t.Errorf("sum %d, want %d", got, want)
		}
		futs, err := burn.Map(ctx, []uint64{1, 2, 3, 4})
		if err != nil {
			return err
		}
		_, err = dusk.Gather(ctx, futs)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	page, rep := readReport(t, path)
	if rep.Err != "" || rep.Threads != 4 || len(rep.Workers) != 2 || rep.Seconds <= 0 || rep.Busy <= 0 || rep.Busy > 1 {
		t.Errorf("report: %+v", rep)
	}
	tasks := 0
	kinds := map[string]report.Kind{}
	for _, k := range rep.Kinds {
		tasks += k.Count
		kinds[k.Name] = k
	}
	if tasks != rep.Tasks || kinds["test-burn"].Count != 4 || kinds["test-burn"].Seconds <= 0 {
		t.Errorf("kinds %+v: want the 4 burns, and the tasks counted once each (%d)", rep.Kinds, rep.Tasks)
	}
	for _, prefix := range []string{"shuffle-transfer", "shuffle-unpack"} {
		if !strings.Contains(page, `data-kind="`+prefix) {
			t.Errorf("no %s row in the report's kinds", prefix)
		}
	}
	moves := map[string]report.Kind{}
	for _, k := range rep.Moves {
		moves[k.Name] = k
	}
	if moves[dusk.RecordDiskWrite].Count == 0 || moves[dusk.RecordTransfer].Bytes == 0 {
		t.Errorf("moves %+v: want the disk writes and the sum's transfers", rep.Moves)
	}

	// One process: one worker's profile, which the other shares.
	prof := rep.Profile
	if len(prof.Workers) != 1 || len(prof.Missing) != 1 || prof.Seconds <= 0 {
		t.Errorf("profile of %v, missing %v, %v s sampled: want one profile of the burns, shared", prof.Workers, prof.Missing, prof.Seconds)
	}
	for w, why := range prof.Missing {
		if !strings.Contains(why, "shares its process's profile") {
			t.Errorf("%s: %s", w, why)
		}
	}
	if !slices.ContainsFunc(prof.Top, func(f report.Function) bool { return strings.HasSuffix(f.Name, "burnCPU") && f.Flat > 0 }) {
		t.Errorf("burnCPU is not among the top functions: %+v", prof.Top)
	}
	link := regexp.MustCompile(`href="data:application/octet-stream;base64,([^"]+)"`).FindStringSubmatch(page)
	if link == nil {
		t.Fatal("no profile to download")
	}
	b, err := base64.StdEncoding.DecodeString(html.UnescapeString(link[1]))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := profile.ParseData(b); err != nil || len(p.Sample) == 0 {
		t.Errorf("the downloadable profile: %v", err)
	}

	// A failed run: its error comes back, and the report says it.
	failed := errors.New("the run's own failure")
	err = dusk.PerformanceReport(ctx, path, func(ctx context.Context) error { return failed })
	if !errors.Is(err, failed) {
		t.Errorf("err = %v, want the run's", err)
	}
	if _, rep := readReport(t, path); rep.Err != failed.Error() || rep.Tasks != 0 {
		t.Errorf("the failed run's report: %+v", rep)
	}
}

// readReport reads the report at path, and its data block.
func readReport(t *testing.T, path string) (string, report.Report) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	m := regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no data block in %s", path)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(m[1]), &rep); err != nil {
		t.Fatalf("data block: %v", err)
	}
	return page, rep
}

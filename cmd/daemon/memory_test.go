package daemon_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/procmem"
)

// bigRows of the groupby table make a CSV file of about 1.6 GB (1.5 GiB),
// about 2 GiB as Arrow columns in memory.
const bigRows = 32_000_000

// bigRef is the answer to the out-of-core queries, straight from the generator.
type bigRef struct {
	groups map[string]groupRef // by id1
	v1Gt3  int64               // rows with v1 > 3
}

// writeBigData writes the table and works out the reference on the other
// core meanwhile.
func writeBigData(t *testing.T, path string) bigRef {
	t.Helper()
	var ref bigRef
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ref.groups = map[string]groupRef{}
		g := bench.NewGroupByGen(bigRows, 100, 7)
		for i := 0; i < bigRows; i++ {
			r := g.Row()
			addRow(ref.groups, r.ID1, r)
			if r.V1 > 3 {
				ref.v1Gt3++
			}
		}
	}()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteGroupByCSV(f, bigRows, 100, 7); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	return ref
}

var workerPID = regexp.MustCompile(`started worker process.*pid=(\d+)`)

// One worker with a 256 MiB limit persists a 1.5 GiB table, six times its
// memory, then computes a groupby-sum and a filter-count over it: the
// results spill to disk and come back, the answers are right, and the
// worker process never holds more than 1.2 times its limit.
func TestLargerThanMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 1.5 GiB")
	}
	const limit = 256 << 20
	path := filepath.Join(t.TempDir(), bench.GroupByFileName(bigRows, 100))
	ref := writeBigData(t, path)
	if fi, err := os.Stat(path); err != nil || fi.Size() < 1536<<20 {
		t.Fatalf("the data file: %v, %v; want 1.5 GiB", fi.Size(), err)
	}

	sched, workers := startCluster(t, bins.dusk, 1, "--nthreads", "1", "--memory-limit", strconv.Itoa(limit))
	m := workerPID.FindStringSubmatch(workers[0].stderr.String())
	if m == nil {
		t.Fatalf("the nanny did not name its worker process:\n%s", workers[0].stderr)
	}
	pid, _ := strconv.Atoi(m[1])
	// 1.5 GiB through a 256 MiB worker: 70-85 s alone on the 2-core VM.
	ctx := testCtxFor(t, 5*time.Minute)
	c, err := dusk.NewClient(ctx, dusk.Address(sched.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx = dusk.WithClient(ctx, c)

	df := dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 4 << 20})
	p, err := df.Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	tab, err := groupByQuery(p).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkGroupBy(t, tab, ref.groups)
	n, err := p.Filter(dataframe.Col("v1").Gt(3)).Len(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != ref.v1Gt3 {
		t.Fatalf("filter-count: %d rows, want %d", n, ref.v1Gt3)
	}

	peak := procmem.PeakRSS(pid)
	ws, err := c.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mem := ws[0].Memory
	t.Logf("peak RSS %d MiB (limit %d MiB); spilled %d MiB in all, read back %d MiB; now managed %d MiB, on disk %d MiB",
		peak>>20, limit>>20, mem.SpilledTotal>>20, mem.UnspilledTotal>>20, mem.Managed>>20, mem.Spilled>>20)
	if mem.SpilledTotal < 1<<30 {
		t.Errorf("the worker spilled %d bytes of a dataset six times its memory", mem.SpilledTotal)
	}
	if peak == 0 || float64(peak) > 1.2*limit {
		t.Errorf("worker peak RSS %d MiB; want under 1.2 × %d MiB", peak>>20, limit>>20)
	}
	if starts := workerPID.FindAllString(workers[0].stderr.String(), -1); len(starts) != 1 {
		t.Errorf("the nanny restarted the worker: the peak is of the last process only\n%s", workers[0].stderr)
	}
}

package daemon_test

import (
	"testing"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/gpuemu"
)

// Worker processes on a machine whose driver sees a GPU (the emulator,
// which runs the kernels on the CPU) offer it unless told otherwise; a
// client that asks for the GPU gets its grouped aggregation's partial
// states computed by the GPU worker's kernels, and the right answer.
func TestGPUWorkersAcrossProcesses(t *testing.T) {
	t.Setenv(gpu.LibraryEnv, gpuemu.Build(t))
	sched, _ := startCluster(t, bins.dusk, 1)
	start(t, bins.dusk, "worker", "--scheduler", sched.addr, "--host", "127.0.0.1", "--nthreads", "1",
		"--name", "cpu-only", "--local-directory", t.TempDir(), "--resources", "GPU=0")
	ctx := testCtx(t)
	c, err := dusk.NewClient(ctx, dusk.Address(sched.addr), dusk.WithGPU())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ws, err := c.WaitForWorkers(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		want := 1.0
		if w.Name == "cpu-only" {
			want = 0
		}
		if got := w.Resources["GPU"]; got != want {
			t.Errorf("worker %s offers GPU=%v, want %v", w.Name, got, want)
		}
	}
	path, ref := groupByData(t)
	df := dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 4 << 20})
	tab, err := groupByQuery(df).Compute(dusk.WithClient(ctx, c))
	if err != nil {
		t.Fatal(err)
	}
	checkGroupBy(t, tab, ref)
}

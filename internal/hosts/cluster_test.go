package hosts_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk/bench/tpch"
	"github.com/duskdata/dusk/internal/hosts"
)

// dusk is the binary the hosts run, built once for the tests.
var dusk string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dusk-hosts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dusk = filepath.Join(dir, "dusk")
	if out, err := exec.Command("go", "build", "-o", dusk, "github.com/duskdata/dusk/cmd/dusk").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build dusk: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// schedPort is where the scheduler serves on h0.
const schedPort = "8786"

// cluster is a scheduler on the bed's first host and a worker on each
// other one.
type cluster struct {
	bed     *hosts.Bed
	addr    string // the scheduler's
	sched   *hosts.Proc
	workers []*hosts.Proc
}

// startCluster starts a scheduler on h0 and a one-thread worker on every
// other host, given workerArgs too, and waits until all have joined.
func startCluster(t *testing.T, ctx context.Context, bed *hosts.Bed, workerArgs ...string) *cluster {
	t.Helper()
	h0 := bed.Hosts[0]
	c := &cluster{bed: bed, addr: h0.IP.String() + ":" + schedPort}
	c.sched = h0.Start(dusk, "scheduler", "--host", h0.IP.String(), "--port", schedPort, "--dashboard-address", "none")
	if _, err := c.sched.WaitFor(ctx, "dusk scheduler at"); err != nil {
		t.Fatal(err)
	}
	for i, h := range bed.Hosts[1:] {
		args := append([]string{"worker", "--scheduler", c.addr, "--nthreads", "1", "--memory-limit", "2GiB",
			"--name", h.Name, "--local-directory", filepath.Join(t.TempDir(), h.Name), "--dashboard-address", "none"}, workerArgs...)
		c.workers = append(c.workers, h.Start(dusk, args...))
		if _, err := c.sched.WaitForN(ctx, "worker joined", i+1); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// sf1 is a folder of TPC-H's SF1 tables, made the first time in the
// user's cache (where bench/tpch's tests keep them too).
func sf1(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tpch-sf1")
	if c, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(c, "dusk", "tpch-sf1")
	}
	if err := tpch.Generate(dir, 1, testLog{t}); err != nil {
		t.Fatal(err)
	}
	return dir
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) { l.t.Log(strings.TrimSpace(string(b))); return len(b), nil }

// runTPCH runs `dusk bench tpch` on the client host against the cluster
// and checks every answer against TPC-H's.
func runTPCH(t *testing.T, ctx context.Context, client *hosts.Host, c *cluster, data string, queries ...string) {
	t.Helper()
	answers := t.TempDir()
	args := []string{"bench", "tpch", "--scheduler", c.addr, "--data", data, "--answers", answers}
	if len(queries) > 0 {
		args = append(args, "--queries", strings.Join(queries, ","))
	}
	p := client.Start(dusk, args...)
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("dusk bench tpch: %v\n%s\nscheduler:\n%s", err, p.Output(), c.sched.Output())
	}
	t.Logf("dusk bench tpch on %d hosts:\n%s", len(c.bed.Hosts), p.Output())
	checkAnswers(t, answers, queries)
}

// checkAnswers compares the answers in dir with TPC-H's.
func checkAnswers(t *testing.T, dir string, ids []string) {
	t.Helper()
	for i := range tpch.Queries {
		q := &tpch.Queries[i]
		if len(ids) > 0 && !contains(ids, q.ID) {
			continue
		}
		_, got, err := tpch.ReadAnswer(filepath.Join(dir, tpch.AnswerFile(q.ID)))
		if err != nil {
			t.Errorf("%s: %v", q.ID, err)
			continue
		}
		_, want, err := tpch.ReadAnswer(filepath.Join("..", "..", "bench", "tpch", "testdata", "sf1-answers", tpch.AnswerFile(q.ID)))
		if err != nil {
			t.Fatal(err)
		}
		if err := tpch.CompareAnswer(q, got, want); err != nil {
			t.Errorf("%s: %v", q.ID, err)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestTPCH runs TPC-H's 22 queries at SF1 from Parquet on four hosts of
// 1 Gbit/s (a scheduler and the client on one, a one-thread worker on each
// of the others), with results compressed between hosts (LZ4, the
// default) and not, and checks every answer.
func TestTPCH(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	hosts.Require(t, "ip", "tc")
	data := sf1(t)
	for _, comp := range []string{"auto", "none"} {
		t.Run("compression="+comp, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			bed := hosts.New(t, 4, hosts.Link{Rate: "1gbit"})
			c := startCluster(t, ctx, bed, "--compression", comp)
			runTPCH(t, ctx, bed.Hosts[0], c, data)
		})
	}
}

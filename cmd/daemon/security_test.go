package daemon_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/membership"
	"github.com/duskdata/dusk/internal/security"
	"github.com/duskdata/dusk/internal/transport/grpcnet"
)

// tlsArgs are the three TLS flags for f.
func tlsArgs(f security.Files) []string {
	return []string{"--tls-ca-file", f.CA, "--tls-cert", f.Cert, "--tls-key", f.Key}
}

// A cluster made with `dusk tls init` runs a job over mutual TLS with the
// right answers. The scheduler and a worker's data port refuse a client
// without TLS, one whose certificate another CA signed and one whose
// certificate expired, at the handshake, and both sides say why; a member
// without the key cannot join the encrypted gossip.
func TestTLS(t *testing.T) {
	ctx := testCtx(t)
	dir, otherDir := t.TempDir(), t.TempDir()
	for _, d := range []string{dir, otherDir} {
		if out, err := exec.Command(bins.dusk, "tls", "init", d).CombinedOutput(); err != nil {
			t.Fatalf("dusk tls init: %v\n%s", err, out)
		}
	}
	files := func(d, role string) security.Files {
		return security.Files{CA: filepath.Join(d, "ca.pem"), Cert: filepath.Join(d, role+".pem"), Key: filepath.Join(d, role+"-key.pem")}
	}
	ca, err := security.LoadAuthority(filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	expired, err := ca.Write(t.TempDir(), "client", time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}

	sched := start(t, bins.dusk, append([]string{"scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "none"},
		tlsArgs(files(dir, "scheduler"))...)...)
	var workers []*proc
	for i := 0; i < 2; i++ {
		workers = append(workers, start(t, bins.dusk, append([]string{"worker", "--scheduler", sched.addr, "--host", "127.0.0.1",
			"--nthreads", "1", "--name", fmt.Sprintf("w%d", i), "--local-directory", t.TempDir(), "--no-nanny"},
			tlsArgs(files(dir, "worker"))...)...))
	}

	client := files(dir, "client")
	c, err := dusk.NewClient(ctx, dusk.Address(sched.addr), dusk.TLS(client.CA, client.Cert, client.Key))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.WaitForWorkers(ctx, 2); err != nil {
		t.Fatal(err)
	}
	path, ref := groupByData(t)
	tab, err := groupByQuery(dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 4 << 20})).Compute(dusk.WithClient(ctx, c))
	if err != nil {
		t.Fatal(err)
	}
	checkGroupBy(t, tab, ref)

	foreign := files(otherDir, "client")
	refused := []struct {
		name     string
		opt      dusk.Option
		tls      security.Files
		client   string // in the client's error
		listener string // in the refusing process's log
	}{
		{"no TLS", nil, security.Files{}, "as a TLS listener does", "does not speak TLS"},
		{"another CA", dusk.TLS(foreign.CA, foreign.Cert, foreign.Key), foreign, "not signed by this cluster's CA", "refused this process's certificate"},
		{"expired", dusk.TLS(expired.CA, expired.Cert, expired.Key), expired, "it has expired", "certificate has expired"},
	}
	ws, err := c.Workers(ctx)
	if err != nil || len(ws) != 2 {
		t.Fatalf("workers %v, %v", ws, err)
	}
	for _, r := range refused {
		opts := []dusk.Option{dusk.Address(sched.addr), dusk.ConnectTimeout(10 * time.Second)}
		if r.opt != nil {
			opts = append(opts, r.opt)
		}
		_, err := dusk.NewClient(ctx, opts...)
		if err == nil || !strings.Contains(err.Error(), r.client) {
			t.Errorf("%s: the scheduler let the client in or said %v", r.name, err)
		}
		sched.stderr.waitFor(t, ctx, sched, r.listener)

		// A worker's data port refuses the same peer.
		n := grpcnet.New()
		if r.tls.Enabled() {
			if n.TLS, err = security.Load(r.tls); err != nil {
				t.Fatal(err)
			}
		}
		conn, err := n.Dial(ctx, string(ws[0].ID))
		if err == nil {
			_, err = conn.GetData(ctx, []graph.Key{"anything"})
			conn.Close()
		}
		var he *security.HandshakeError
		if !errors.As(err, &he) || !strings.Contains(err.Error(), r.client) {
			t.Errorf("%s: a worker's data port answered with %v", r.name, err)
		}
	}
	for _, w := range workers {
		if strings.Contains(w.stderr.String(), "worker="+string(ws[0].ID)) {
			w.stderr.waitFor(t, ctx, w, "refused this process's certificate")
		}
	}

	// The gossip is encrypted: a member without the key cannot join it.
	m := regexp.MustCompile(`gossip=(\S+)`).FindStringSubmatch(sched.stderr.String())
	if m == nil {
		t.Fatalf("the scheduler's log names no gossip address:\n%s", sched.stderr)
	}
	intruder, err := membership.Start(membership.Config{Name: "intruder", Host: "127.0.0.1", Log: discard()})
	if err != nil {
		t.Fatal(err)
	}
	defer intruder.Leave()
	if err := intruder.Join(m[1]); err == nil {
		t.Fatal("a member without the key joined the encrypted gossip")
	}
}

// A worker with --allow-path fails a task that reads or writes outside
// the allowed directory, naming the path and the rule; inside it, the job
// succeeds.
func TestAllowPath(t *testing.T) {
	ctx := testCtx(t)
	inside, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{inside, outside} {
		if err := os.WriteFile(filepath.Join(d, "x.csv"), []byte("k,v\na,1\nb,2\na,3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sched, _ := startCluster(t, bins.dusk, 1, "--allow-path", inside, "--allow-path", "s3://bucket/team/")
	cctx := connect(t, ctx, sched.addr)
	tab, err := dataframe.ReadCSV(filepath.Join(inside, "x.csv")).GroupBy("k").Agg(dataframe.Sum("v")).Compute(cctx)
	if err != nil {
		t.Fatal(err)
	}
	if tab.NumRows() != 2 {
		t.Fatalf("%d groups", tab.NumRows())
	}
	tab.Release()
	if _, err := dataframe.ReadCSV(filepath.Join(inside, "x.csv")).ToCSV(cctx, filepath.Join(inside, "out")); err != nil {
		t.Fatalf("a write inside: %v", err)
	}
	_, err = dataframe.ReadCSV(filepath.Join(outside, "x.csv")).Compute(cctx)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(outside, "x.csv")) || !strings.Contains(err.Error(), "--allow-path "+inside) {
		t.Fatalf("a read outside: %v", err)
	}
	_, err = dataframe.ReadCSV(filepath.Join(inside, "x.csv")).ToCSV(cctx, filepath.Join(outside, "out"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(outside, "out")) || !strings.Contains(err.Error(), "--allow-path") {
		t.Fatalf("a write outside: %v", err)
	}
}

package grpcnet

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/security"
	"github.com/duskdata/dusk/internal/transport/transporttest"
)

// lines is a log handler that passes each message to the test.
type lines chan string

func (l lines) Enabled(context.Context, slog.Level) bool { return true }
func (l lines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l lines) WithGroup(string) slog.Handler            { return l }
func (l lines) Handle(_ context.Context, r slog.Record) error {
	select {
	case l <- r.Message:
	default:
	}
	return nil
}

// waitForLog reads the log until a message holds want.
func waitForLog(t *testing.T, log lines, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-log:
			if strings.Contains(m, want) {
				return
			}
			t.Logf("listener: %s", m)
		case <-timeout:
			t.Fatalf("the listener's log never said %q", want)
		}
	}
}

// load loads the material a Write made, failing the test on either's error.
func load(t testing.TB, f security.Files, err error) *security.TLS {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	tl, err := security.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// A listener with TLS admits a peer whose certificate its CA signed, and
// refuses, at the handshake and saying why on both sides, a peer without
// TLS, one from another CA and one whose certificate expired.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, err := security.NewAuthority("ca", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other, err := security.NewAuthority("other", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	f, err := ca.Write(dir+"/a", "server", now.Add(-time.Hour), now.Add(time.Hour))
	server := load(t, f, err)
	f, err = ca.Write(dir+"/a", "client", now.Add(-time.Hour), now.Add(time.Hour))
	good := load(t, f, err)
	f, err = other.Write(dir+"/b", "client", now.Add(-time.Hour), now.Add(time.Hour))
	foreign := load(t, f, err)
	f, err = ca.Write(dir+"/c", "client", now.Add(-2*time.Hour), now.Add(-time.Hour))
	expired := load(t, f, err)

	log := make(lines, 100)
	n := &Network{TLS: server, Log: slog.New(log)}
	ln, err := n.Listen("", &transporttest.Echo{Data: map[graph.Key]any{"x": int64(7)}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	conn, err := (&Network{TLS: good}).Dial(ctx, ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	vals, err := conn.GetData(ctx, []graph.Key{"x"})
	conn.Close()
	if err != nil || vals["x"] != int64(7) {
		t.Fatalf("over TLS got %v, %v", vals, err)
	}

	for _, c := range []struct {
		name       string
		tls        *security.TLS
		client     string // in the dialer's error
		serverSide string // in the listener's log
	}{
		{"another CA", foreign, "not signed by this cluster's CA", "refused this process's certificate: is it signed by another CA"},
		{"expired", expired, "refused this process's certificate: it has expired", "the peer's certificate has expired"},
	} {
		_, err := (&Network{TLS: c.tls}).Dial(ctx, ln.Addr())
		var he *security.HandshakeError
		if err == nil || !strings.Contains(err.Error(), c.client) || !strings.Contains(err.Error(), "TLS handshake with") {
			t.Errorf("%s: dial error %v", c.name, err)
		} else if !errors.As(err, &he) {
			t.Errorf("%s: %v is no HandshakeError", c.name, err)
		}
		waitForLog(t, log, c.serverSide)
	}

	// A client without TLS hears that the listener wants it, and the
	// listener says the client does not speak it.
	if _, err := New().Dial(ctx, ln.Addr()); err == nil || !strings.Contains(err.Error(), "as a TLS listener does") {
		t.Fatalf("plain dial of a TLS listener: %v", err)
	}
	waitForLog(t, log, "the peer does not speak TLS")

	// A TLS client of a plain listener is told the listener does not speak it.
	pln, err := New().Listen("", &transporttest.Echo{})
	if err != nil {
		t.Fatal(err)
	}
	defer pln.Close()
	if _, err := (&Network{TLS: good}).Dial(ctx, pln.Addr()); err == nil || !strings.Contains(err.Error(), "the server does not speak TLS") {
		t.Fatalf("TLS dial of a plain listener: %v", err)
	}
}

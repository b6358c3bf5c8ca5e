// Command dusktest is dusk with functions that only tests need: tests build
// it to run workers that can fail, hold memory, or kill their own process.
//
// Must never import: cmd/dusk, examples, or collections/testcluster.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/duskdata/dusk"
)

var (
	_ = dusk.Register("test-inc", func(_ context.Context, x int) (int, error) { return x + 1, nil })
	_ = dusk.Register("test-exit", func(context.Context, int) (int, error) {
		os.Exit(3) // the worker dies running it, every time
		return 0, nil
	})
	_ = dusk.Register("test-alloc", alloc)
	// test-add-refs adds the results of two futures.
	_ = dusk.Register("test-add-refs", func(_ context.Context, p RefPair) (int, error) { return p.A.Value() + p.B.Value(), nil })
	// test-open fails with an *fs.PathError for a path that is not there.
	_ = dusk.Register("test-open", func(_ context.Context, path string) (int, error) {
		f, err := os.Open(path)
		if err != nil {
			return 0, fmt.Errorf("open input: %w", err)
		}
		return 0, f.Close()
	})
	// test-sleep is a task that takes its argument's milliseconds.
	_ = dusk.Register("test-sleep", func(ctx context.Context, ms int) (int, error) {
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-ctx.Done():
		}
		return ms, nil
	})
)

// RefPair is two futures' results, as an argument.
type RefPair struct{ A, B dusk.Ref[int] }

// AllocArgs says how much test-alloc allocates, and where it leaves a mark
// so that it allocates only the first time.
type AllocArgs struct {
	MiB    int
	Marker string
}

// alloc takes MiB of memory, touching every page so that the operating
// system counts it, and holds it for a while: long enough for the nanny to
// see it. With a Marker, it does so only if the marker is not there yet.
func alloc(ctx context.Context, a AllocArgs) (int, error) {
	if a.Marker != "" {
		if _, err := os.Stat(a.Marker); err == nil {
			return 0, nil
		}
		if err := os.WriteFile(a.Marker, nil, 0o600); err != nil {
			return 0, err
		}
	}
	b := make([]byte, a.MiB<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	select {
	case <-time.After(10 * time.Second):
	case <-ctx.Done():
	}
	runtime.KeepAlive(b)
	return a.MiB, nil
}

func main() { dusk.Main() }

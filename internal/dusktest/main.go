// Command dusktest is dusk with functions that only tests need: tests build
// it to run workers that can sleep, fail, or kill their own process.
package main

import (
	"context"
	"os"
	"time"

	"github.com/duskdata/dusk"
)

var (
	_ = dusk.Register("test-inc", func(_ context.Context, x int) (int, error) { return x + 1, nil })
	_ = dusk.Register("test-sleep", func(ctx context.Context, ms int) (int, error) {
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-ctx.Done():
		}
		return ms, nil
	})
	_ = dusk.Register("test-exit", func(context.Context, int) (int, error) {
		os.Exit(3) // the worker dies running it, every time
		return 0, nil
	})
)

func main() { dusk.Main() }

// Package testcluster starts the local clusters that the collections'
// tests run on. Only tests import it.
package testcluster

import (
	"context"
	"testing"
	"time"

	"github.com/duskdata/dusk"
)

// Local starts a local cluster of two workers for t, closed when t ends,
// and returns a context that carries its client and gives up after two
// minutes.
func Local(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		t.Fatalf("start client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return dusk.WithClient(ctx, c)
}

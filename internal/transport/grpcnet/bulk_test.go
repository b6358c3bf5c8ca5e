package grpcnet

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/internal/transport/transporttest"
)

// moody serves the key "rec", refuses "bad" with an error, and holds a
// request for "wait" until its context ends.
type moody struct {
	transporttest.Echo
	waiting chan struct{}
}

func (m *moody) GetData(ctx context.Context, keys []graph.Key) (map[graph.Key]any, error) {
	switch keys[0] {
	case "bad":
		return nil, errors.New("no such luck")
	case "wait":
		m.waiting <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return m.Echo.GetData(ctx, keys)
}

func (m *moody) Push(context.Context, *protocol.ShufflePush) error { return errors.New("full up") }

// TestBulk: transfers run side by side on pooled connections; a handler's
// error arrives as its message and leaves the connection usable; a caller
// that gives up, or a listener that closes, ends a transfer at once; idle
// connections to a peer that went away are not used again.
func TestBulk(t *testing.T) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < 200_000; i++ {
		b.Append(int64(i))
	}
	col := b.NewArray()
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(col.Len()))
	col.Release()
	defer rec.Release()
	h := &moody{Echo: transporttest.Echo{Data: map[graph.Key]any{"rec": rec}}, waiting: make(chan struct{}, 1)}
	n := New()
	ctx, ln, c := transporttest.Connect(t, n, h)

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vals, err := c.GetData(ctx, []graph.Key{"rec"})
			if err == nil && !array.RecordEqual(vals["rec"].(arrow.Record), rec) {
				err = errors.New("the record came back different")
			}
			releaseValues(vals)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.(*conn).bulk.idle); n < 2 || n > 8 {
		t.Errorf("%d pooled connections after 8 transfers at once", n)
	}

	if _, err := c.GetData(ctx, []graph.Key{"bad"}); err == nil || !strings.Contains(err.Error(), "no such luck") {
		t.Errorf("GetData of a refused key: %v", err)
	}
	err := c.Push(ctx, &protocol.ShufflePush{ID: "s", Parts: []int{0}, Values: []any{rec}})
	if err == nil || !strings.Contains(err.Error(), "full up") {
		t.Errorf("a refused push: %v", err)
	}
	if vals, err := c.GetData(ctx, []graph.Key{"rec"}); err != nil || len(vals) != 1 {
		t.Errorf("GetData after refusals: %v", err)
	} else {
		releaseValues(vals)
	}

	short, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := c.GetData(short, []graph.Key{"wait"}); done <- err }()
	<-h.waiting
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled GetData: %v", err)
	}

	go func() { _, err := c.GetData(ctx, []graph.Key{"wait"}); done <- err }()
	<-h.waiting
	ln.Close()
	if err := <-done; err == nil {
		t.Error("a GetData whose listener closed succeeded")
	}

	// The peer comes back at its address: the connections it had are gone,
	// and the next transfer takes a new one.
	ln, err = n.Listen(ln.Addr(), h)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if vals, err := c.GetData(ctx, []graph.Key{"rec"}); err != nil || len(vals) != 1 {
		t.Errorf("GetData from the peer back at its address: %v", err)
	} else {
		releaseValues(vals)
	}
	var _ transport.Handler = h
}

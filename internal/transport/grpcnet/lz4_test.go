package grpcnet

import (
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport/transporttest"
)

// TestLZ4Transfers moves values compressed with LZ4, as the default
// (CompressAuto) does between machines: several values one after another
// on each connection, several connections at once, records of many LZ4
// blocks and IPC batches, pushes too. LZ4's read-ahead once outlived its
// value and read the next one's bytes (a hang, or a panic in bufio); .ci/run
// runs this package under -race, which reported it. Between real addresses
// the host bed (internal/hosts) runs the same path with CompressAuto.
func TestLZ4Transfers(t *testing.T) {
	data := map[graph.Key]any{}
	var keys []graph.Key
	for i := range 4 {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for j := range 2_500_000 + i*100_000 { // 20 MB and more: two IPC batches, five LZ4 blocks
			b.Append(int64(j % (1000 + i)))
		}
		col := b.NewArray()
		rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(col.Len()))
		col.Release()
		defer rec.Release()
		k := graph.Key(fmt.Sprintf("rec%d", i))
		data[k], keys = rec, append(keys, k)
	}
	h := &transporttest.Echo{Data: data}
	ctx, _, c := transporttest.Connect(t, &Network{Compression: CompressAlways}, h)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				vals, err := c.GetData(ctx, keys)
				for _, k := range keys {
					if err == nil && !array.RecordEqual(vals[k].(arrow.Record), data[k].(arrow.Record)) {
						err = fmt.Errorf("%s came back different", k)
					}
				}
				releaseValues(vals)
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	p := &protocol.ShufflePush{ID: "s", Parts: []int{0, 1, 2}, Values: []any{data["rec0"], data["rec1"], data["rec2"]}}
	if err := c.Push(ctx, p); err != nil {
		t.Fatal(err)
	}
	pushed := h.Pushed()
	if len(pushed) != 1 || len(pushed[0].Values) != 3 {
		t.Fatalf("the push arrived as %v", pushed)
	}
	for i, v := range pushed[0].Values {
		r, ok := v.(arrow.Record)
		if !ok || !array.RecordEqual(r, data[keys[i]].(arrow.Record)) {
			t.Fatal("a pushed piece came back different")
		}
		r.Release()
	}
}

package array

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
)

// arrayDesc is what a published array's dataset says besides its keys.
type arrayDesc struct {
	Shape  []int   `json:"shape"`
	Chunks [][]int `json:"chunks"`
	DType  DType   `json:"dtype"`
	Tok    string  `json:"tok"`
}

func init() {
	collections.RegisterKind("array", func(_ context.Context, d collections.Dataset, release func()) (any, error) {
		var desc arrayDesc
		if err := json.Unmarshal(d.Desc, &desc); err != nil {
			release()
			return nil, fmt.Errorf("array: dataset: %w", err)
		}
		keys := d.Keys
		return &Array{shape: desc.Shape, chunks: desc.Chunks, dtype: desc.DType, pin: collections.NewPin(release),
			n: &node{tok: desc.Tok, lower: func(*lowering) []graph.Key { return keys }}}, nil
	})
}

// Publication describes a persisted array for a client's Publish; an array
// not persisted has none.
func (a *Array) Publication() (collections.Dataset, error) {
	if a.err != nil {
		return collections.Dataset{}, a.err
	}
	if a.pin == nil {
		return collections.Dataset{}, fmt.Errorf("array: only a persisted array can be published: Persist it first")
	}
	keys := a.n.lower(newLowering())
	return collections.Dataset{Kind: "array", Keys: keys,
		Desc: mustJSON(arrayDesc{Shape: a.shape, Chunks: a.chunks, DType: a.dtype, Tok: a.n.tok})}, nil
}

// FromDataset is the array published under name on the cluster of the
// client in ctx, held until it is released or unreachable.
func FromDataset(ctx context.Context, name string) (*Array, error) {
	d, release, err := collections.Published(ctx, name)
	if err != nil {
		return nil, err
	}
	if d.Kind != "array" {
		release()
		return nil, fmt.Errorf("array: dataset %q is a %s, not an array", name, d.Kind)
	}
	v, err := collections.Restored(ctx, d, release)
	if err != nil {
		return nil, err
	}
	return v.(*Array), nil
}

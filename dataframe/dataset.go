package dataframe

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/duskdata/dusk/collections"
)

// frameDesc is what a published frame's dataset says besides its keys.
type frameDesc struct {
	Schema []ops.ColSpec `json:"schema"`
	Tok    string        `json:"tok"`
}

func init() {
	collections.RegisterKind("dataframe", func(_ context.Context, d collections.Dataset, release func()) (any, error) {
		var desc frameDesc
		if err := json.Unmarshal(d.Desc, &desc); err != nil {
			release()
			return nil, fmt.Errorf("dataframe: dataset: %w", err)
		}
		p := &plan.Persisted{Out: ops.SchemaOf(desc.Schema), Keys: d.Keys, Tok: desc.Tok, Pin: collections.NewPin(release), Bytes: -1, Rows: -1}
		return &Frame{plan: p}, nil
	})
}

// Publication describes a persisted frame for a client's Publish; a frame
// not persisted has none.
func (f *Frame) Publication() (collections.Dataset, error) {
	if f.err != nil {
		return collections.Dataset{}, f.err
	}
	p, ok := f.plan.(*plan.Persisted)
	if !ok {
		return collections.Dataset{}, fmt.Errorf("dataframe: only a persisted frame can be published: Persist it first")
	}
	return collections.Dataset{Kind: "dataframe", Keys: p.Keys, Desc: ops.MustJSON(frameDesc{Schema: ops.SpecOf(p.Out), Tok: p.Tok})}, nil
}

// FromDataset is the frame published under name on the cluster of the
// client in ctx, held until it is released or unreachable.
func FromDataset(ctx context.Context, name string) (*Frame, error) {
	d, release, err := collections.Published(ctx, name)
	if err != nil {
		return nil, err
	}
	if d.Kind != "dataframe" {
		release()
		return nil, fmt.Errorf("dataframe: dataset %q is a %s, not a dataframe", name, d.Kind)
	}
	v, err := collections.Restored(ctx, d, release)
	if err != nil {
		return nil, err
	}
	return v.(*Frame), nil
}

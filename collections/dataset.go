package collections

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/duskdata/dusk/graph"
)

// Dataset describes a persisted collection shared under a name, so that
// another client can make it again: the keys of its partitions held on the
// cluster, its kind, and what that kind needs besides (a frame's schema, an
// array's shape).
type Dataset struct {
	Kind string          `json:"kind"`
	Keys []graph.Key     `json:"-"` // travel beside the description
	Desc json.RawMessage `json:"desc"`
}

// Publishable is a persisted collection that can be shared by name.
type Publishable interface {
	Publication() (Dataset, error)
}

// Publisher is an executor that keeps datasets by name for its cluster's
// clients (a dusk.Client).
type Publisher interface {
	// Published returns the dataset called name, and takes a want on its
	// keys that release lets go of.
	Published(ctx context.Context, name string) (d Dataset, release func(), err error)
}

// Restore makes a collection of its kind from a dataset whose keys are
// wanted until release is called.
type Restore func(ctx context.Context, d Dataset, release func()) (any, error)

var (
	kindsMu sync.Mutex
	kinds   = map[string]Restore{}
)

// RegisterKind says how to make a collection of kind from its dataset.
func RegisterKind(kind string, r Restore) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	kinds[kind] = r
}

// Restored makes the collection d describes, holding its keys until
// release is called.
func Restored(ctx context.Context, d Dataset, release func()) (any, error) {
	kindsMu.Lock()
	r := kinds[d.Kind]
	kindsMu.Unlock()
	if r == nil {
		release()
		return nil, fmt.Errorf("a dataset of kind %q, which this program does not import", d.Kind)
	}
	return r(ctx, d, release)
}

// Published fetches the dataset called name from the executor in ctx.
func Published(ctx context.Context, name string) (Dataset, func(), error) {
	e, err := ExecutorFrom(ctx)
	if err != nil {
		return Dataset{}, nil, err
	}
	p, ok := e.(Publisher)
	if !ok {
		return Dataset{}, nil, fmt.Errorf("dataset %q: a %T keeps no datasets", name, e)
	}
	return p.Published(ctx, name)
}

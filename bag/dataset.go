package bag

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
)

// bagDesc is what a published bag's dataset says besides its keys.
type bagDesc struct {
	Name string `json:"name"`
	Type string `json:"type"` // the element type, as reflect names it
}

func init() {
	// A bag's element type is the caller's to say: Client.Dataset cannot.
	collections.RegisterKind("bag", func(_ context.Context, d collections.Dataset, release func()) (any, error) {
		release()
		var desc bagDesc
		json.Unmarshal(d.Desc, &desc)
		return nil, fmt.Errorf("a bag of %s: make it with bag.FromDataset[%s]", desc.Type, desc.Type)
	})
}

// Publication describes a persisted bag for a client's Publish; a bag not
// persisted has none.
func (b *Bag[T]) Publication() (collections.Dataset, error) {
	if b.err != nil {
		return collections.Dataset{}, b.err
	}
	if b.pin == nil {
		return collections.Dataset{}, fmt.Errorf("bag: only a persisted bag can be published: Persist it first")
	}
	return collections.Dataset{Kind: "bag", Keys: b.keys,
		Desc: mustJSON(bagDesc{Name: b.name, Type: reflect.TypeFor[T]().String()})}, nil
}

// FromDataset is the bag of T published under name on the cluster of the
// client in ctx, held until it is released or unreachable.
func FromDataset[T any](ctx context.Context, name string) (*Bag[T], error) {
	d, release, err := collections.Published(ctx, name)
	if err != nil {
		return nil, err
	}
	var desc bagDesc
	if d.Kind == "bag" {
		err = json.Unmarshal(d.Desc, &desc)
	}
	switch want := reflect.TypeFor[T]().String(); {
	case d.Kind != "bag":
		err = fmt.Errorf("bag: dataset %q is a %s, not a bag", name, d.Kind)
	case err != nil:
		err = fmt.Errorf("bag: dataset %q: %w", name, err)
	case desc.Type != want:
		err = fmt.Errorf("bag: dataset %q is a bag of %s, not of %s", name, desc.Type, want)
	}
	if err != nil {
		release()
		return nil, err
	}
	return &Bag[T]{g: graph.New(), keys: d.Keys, name: desc.Name, pin: collections.NewPin(release)}, nil
}

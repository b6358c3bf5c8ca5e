package dusk

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// Publish shares a persisted collection (a frame, an array or a bag) under
// name, like Dask's publish_dataset: the scheduler holds its partitions
// until Unpublish, whatever becomes of this client, and any client of the
// cluster gets it back with Dataset (or dataframe.FromDataset and the like).
func (c *Client) Publish(ctx context.Context, name string, coll collections.Publishable) error {
	d, err := coll.Publication()
	if err != nil {
		return fmt.Errorf("dusk: publish %q: %w", name, err)
	}
	desc, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("dusk: publish %q: %w", name, err)
	}
	_, err = c.shared(ctx, &protocol.Shared{Op: protocol.SharedPublish, Name: name, Keys: d.Keys, Value: desc})
	if err != nil {
		return fmt.Errorf("dusk: publish: %w", err)
	}
	return nil
}

// Published returns the dataset called name and takes this client's want on
// its partitions, until release; for the collections' FromDataset.
func (c *Client) Published(ctx context.Context, name string) (collections.Dataset, func(), error) {
	r, err := c.shared(ctx, &protocol.Shared{Op: protocol.SharedDataset, Name: name})
	if err != nil {
		return collections.Dataset{}, nil, fmt.Errorf("dusk: dataset %q: %w", name, err)
	}
	if !r.Found {
		names, _ := c.Datasets(ctx)
		return collections.Dataset{}, nil, fmt.Errorf("dusk: no dataset is published as %q (there are: %s)", name, strings.Join(names, ", "))
	}
	var d collections.Dataset
	if err := json.Unmarshal(r.Value, &d); err != nil {
		return collections.Dataset{}, nil, fmt.Errorf("dusk: dataset %q: %w", name, err)
	}
	d.Keys = r.Keys
	release, err := c.Persist(ctx, graph.New(), d.Keys)
	if err != nil {
		return collections.Dataset{}, nil, fmt.Errorf("dusk: dataset %q: %w", name, err)
	}
	return d, release, nil
}

// Dataset is the collection published as name, held by this client until
// released or unreachable: a *dataframe.Frame or an *array.Array (a bag
// needs its element type: bag.FromDataset[T]).
func (c *Client) Dataset(ctx context.Context, name string) (any, error) {
	d, release, err := c.Published(ctx, name)
	if err != nil {
		return nil, err
	}
	v, err := collections.Restored(ctx, d, release)
	if err != nil {
		return nil, fmt.Errorf("dusk: dataset %q: %w", name, err)
	}
	return v, nil
}

// Unpublish lets the scheduler drop the dataset called name; clients that
// hold it keep it. It reports whether there was one.
func (c *Client) Unpublish(ctx context.Context, name string) (bool, error) {
	r, err := c.shared(ctx, &protocol.Shared{Op: protocol.SharedUnpublish, Name: name})
	if err != nil {
		return false, fmt.Errorf("dusk: unpublish %q: %w", name, err)
	}
	return r.Found, nil
}

// Datasets lists the names of the published datasets, sorted.
func (c *Client) Datasets(ctx context.Context) ([]string, error) {
	r, err := c.shared(ctx, &protocol.Shared{Op: protocol.SharedDatasets})
	if err != nil {
		return nil, fmt.Errorf("dusk: datasets: %w", err)
	}
	var names []string
	if err := json.Unmarshal(r.Value, &names); err != nil {
		return nil, fmt.Errorf("dusk: datasets: %w", err)
	}
	return names, nil
}

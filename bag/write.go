package bag

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/io/storage"
)

const (
	opToText = "bag-to-text"
	opToJSON = "bag-to-json"
)

type writeArgs struct {
	Path      string `json:"path"`
	Overwrite bool   `json:"overwrite"`
}

func init() {
	registry.RegisterEffect(opToText, writeOp(opToText, func(w io.Writer, p any) error {
		lines, err := part[string](p)
		if err != nil {
			return err
		}
		for _, l := range lines {
			if _, err := io.WriteString(w, l); err != nil {
				return err
			}
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		return nil
	}))
	registry.RegisterEffect(opToJSON, writeOp(opToJSON, func(w io.Writer, p any) error {
		v := reflect.ValueOf(p)
		if p != nil && v.Kind() != reflect.Slice {
			return fmt.Errorf("partition is a %T, not a slice", p)
		}
		enc := json.NewEncoder(w) // one value a line
		enc.SetEscapeHTML(false)
		for i := 0; p != nil && i < v.Len(); i++ {
			if err := enc.Encode(v.Index(i).Interface()); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		return nil
	}))
}

func writeOp(op string, write func(io.Writer, any) error) registry.Op {
	return func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
		var a writeArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", op, err)
		}
		err := storage.WriteFile(a.Path, a.Overwrite, func(w io.Writer) error {
			zw := storage.Compress(w, a.Path)
			bw := bufio.NewWriterSize(zw, 1<<20)
			if err := write(bw, inputs[0]); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			return zw.Close()
		})
		if err != nil {
			return nil, fmt.Errorf("%s: partition %s: %w", op, tc.Part(), err)
		}
		return int64(0), nil
	}
}

// ToText writes each partition's items as lines of its own file, dir's
// part.0.txt, part.1.txt... , atomically, and returns the paths. A file in the way fails
// the write unless overwrite is set.
func ToText(ctx context.Context, b *Bag[string], dir string, overwrite bool) ([]string, error) {
	return write(ctx, b, opToText, dir, "part.%d.txt", overwrite)
}

// ToJSON writes each partition's items as JSON lines, one file per
// partition (dir's part.0.jsonl, ...), as ToText does.
func ToJSON[T any](ctx context.Context, b *Bag[T], dir string, overwrite bool) ([]string, error) {
	return write(ctx, b, opToJSON, dir, "part.%d.jsonl", overwrite)
}

func write[T any](ctx context.Context, b *Bag[T], op, dir, pattern string, overwrite bool) ([]string, error) {
	if b.err != nil {
		return nil, b.err
	}
	g := graph.New()
	g.Merge(b.g)
	paths := make([]string, len(b.keys))
	keys := make([]graph.Key, len(b.keys))
	for i, in := range b.keys {
		paths[i] = storage.Join(storage.Abs(dir), fmt.Sprintf(pattern, i)) // as the caller means it, not the worker
		args := mustJSON(writeArgs{Path: paths[i], Overwrite: overwrite})
		keys[i] = graph.Part(graph.Name("bag-write", op, args, b.name), i)
		g.Add(&graph.Task{Key: keys[i], Op: op, Args: args, Inputs: []graph.Key{in}})
	}
	if len(keys) == 0 {
		return nil, nil
	}
	ex, err := collections.ExecutorFrom(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := ex.Compute(ctx, g, keys); err != nil {
		return nil, err
	}
	return paths, nil
}

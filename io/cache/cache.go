// Package cache keeps the results of per-datum tasks in a directory or
// bucket, so that running a pipeline again recomputes only what changed.
//
// A task's content token hashes its operation, its arguments and its
// inputs' content tokens. Readers put each file's fingerprint (size and
// modification time, or content hash) in their tasks' arguments, so the
// token of a task that depends on one datum changes exactly when that datum
// or the work done on it changes. The per-datum tasks are those all of whose
// inputs trace, through no shuffle, to one and the same task without inputs
// (a read). A task with side effects (a write) is never one, so it runs
// every time, and neither is a combine (graph.Task.Combine), even with one
// input: the lone last group of a tree reduction takes another datum's
// result in as soon as a datum is added. Rewrite stores the results of the
// last per-datum task of each such chain and loads those already stored
// instead of running what leads to them.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, a transport, the
// collections.
package cache

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/codec"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/io/storage"
)

// The operations Rewrite puts in a graph.
const (
	LoadOp  = "cache-load"
	StoreOp = "cache-store"
)

// Stats count what Rewrite decided.
type Stats struct {
	Hits   int // results loaded from the cache
	Stores int // results computed and stored
}

type loadArgs struct {
	Path string `json:"path"`
}

type storeArgs struct {
	Path string `json:"path"`
	Op   string `json:"op"`
	Args []byte `json:"args"`
}

// Rewrite returns g with each cacheable result loaded from dir when it is
// there and stored there when it is computed. g must be culled to keys.
func Rewrite(g *graph.Graph, keys []graph.Key, dir string) (*graph.Graph, Stats, error) {
	var st Stats
	tokens, perDatum := analyse(g)
	dependents := make(map[graph.Key][]*graph.Task)
	for _, t := range g.Tasks() {
		for _, in := range t.Inputs {
			dependents[in] = append(dependents[in], t)
		}
	}
	wanted := make(map[graph.Key]bool, len(keys))
	for _, k := range keys {
		wanted[k] = true
	}
	have, err := listed(dir)
	if err != nil {
		return nil, st, err
	}
	out := graph.New()
	for _, t := range g.Tasks() {
		if !perDatum[t.Key] || !frontier(t, wanted, dependents, perDatum) {
			out.Add(t)
			continue
		}
		name := tokens[t.Key] + ".dusk"
		path := storage.Join(dir, name)
		c := *t
		c.Inputs, c.Chain = nil, nil
		if have[name] {
			c.Op, c.Args = LoadOp, mustJSON(loadArgs{Path: path})
			st.Hits++
		} else {
			c.Op, c.Args, c.Inputs = StoreOp, mustJSON(storeArgs{Path: path, Op: t.Op, Args: t.Args}), t.Inputs
			st.Stores++
		}
		out.Add(&c)
	}
	return graph.Cull(out, keys), st, nil
}

// frontier reports whether t's result is wanted or feeds a task that is not
// per-datum: the end of a per-datum chain.
func frontier(t *graph.Task, wanted map[graph.Key]bool, dependents map[graph.Key][]*graph.Task, perDatum map[graph.Key]bool) bool {
	if wanted[t.Key] {
		return true
	}
	for _, d := range dependents[t.Key] {
		if !perDatum[d.Key] {
			return true
		}
	}
	return false
}

// analyse computes every task's content token and whether it is per-datum.
// Tasks come in an order where inputs precede their dependents.
func analyse(g *graph.Graph) (map[graph.Key]string, map[graph.Key]bool) {
	tokens := make(map[graph.Key]string, g.Len())
	datum := make(map[graph.Key]graph.Key, g.Len()) // the read a per-datum task traces to
	var visit func(t *graph.Task) string
	visit = func(t *graph.Task) string {
		if tok, ok := tokens[t.Key]; ok {
			return tok
		}
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%d\x00", t.Op, len(t.Args))
		h.Write(t.Args)
		eligible := t.Shuffle == nil && !t.Combine && !registry.HasEffect(t.Op) &&
			t.Op != graph.FusedOp && t.Op != LoadOp && t.Op != StoreOp
		var root graph.Key
		if len(t.Inputs) == 0 {
			root = t.Key // a read: a datum of its own
		}
		for i, in := range t.Inputs {
			it := g.Task(in)
			if it == nil { // held by the cluster already: not ours to name
				h.Write([]byte("\x00held\x00" + string(in)))
				eligible = false
				continue
			}
			h.Write([]byte("\x00" + visit(it)))
			r, ok := datum[in]
			switch {
			case !ok:
				eligible = false
			case i == 0:
				root = r
			case r != root:
				eligible = false // inputs from two datums
			}
		}
		tok := hex.EncodeToString(h.Sum(nil)[:16])
		tokens[t.Key] = tok
		if eligible && root != "" {
			datum[t.Key] = root
		}
		return tok
	}
	for _, t := range g.Tasks() {
		visit(t)
	}
	perDatum := make(map[graph.Key]bool, len(datum))
	for k := range datum {
		perDatum[k] = true
	}
	return tokens, perDatum
}

// listed returns the names of the entries stored in dir.
func listed(dir string) (map[string]bool, error) {
	have := map[string]bool{}
	files, err := storage.List(dir)
	if err != nil {
		if errors.Is(err, storage.ErrNoMatch) {
			return have, nil // nothing cached yet
		}
		return nil, fmt.Errorf("cache %s: %w", dir, err)
	}
	for _, f := range files {
		p, _, _ := strings.Cut(f.Path, "?")
		have[p[strings.LastIndexAny(p, "/\\")+1:]] = true
	}
	return have, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func init() {
	registry.Register(LoadOp, load)
	registry.Register(StoreOp, store)
}

// An entry is its codec's name on a line, then the encoded value.
func load(_ *registry.Context, raw []byte, _ []any) (any, error) {
	var a loadArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", LoadOp, err)
	}
	r, err := storage.OpenStream(a.Path)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	name, err := br.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("cache: read %s: %w", a.Path, err)
	}
	c, err := codec.Named(strings.TrimSuffix(name, "\n"))
	if err != nil {
		return nil, fmt.Errorf("cache: read %s: %w", a.Path, err)
	}
	v, err := c.Decode(br)
	if err != nil {
		return nil, fmt.Errorf("cache: read %s: %w", a.Path, err)
	}
	return v, nil
}

func store(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a storeArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", StoreOp, err)
	}
	op, err := registry.Lookup(a.Op)
	if err != nil {
		return nil, err
	}
	v, err := op(tc, a.Args, inputs)
	if err != nil {
		return nil, err
	}
	c, err := codec.For(v)
	if err != nil {
		return v, nil // a result without a codec is not cached
	}
	// Another run may have stored the same entry meanwhile: equal tokens,
	// equal content, so overwriting is harmless.
	err = storage.WriteFile(a.Path, true, func(w io.Writer) error {
		if _, err := io.WriteString(w, c.Name()+"\n"); err != nil {
			return err
		}
		return c.Encode(w, v)
	})
	if err != nil {
		registry.Release(v)
		return nil, fmt.Errorf("cache: %w", err)
	}
	return v, nil
}

package dataframe

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// Func is a user function over a partition or a group's rows. It must not
// keep or release its input; it returns a record the caller owns.
type Func func(arrow.Record) (arrow.Record, error)

var funcs sync.Map // name -> Func

// RegisterFunc makes fn callable by name from MapPartitions and
// GroupBy().Apply. Register it in every binary that runs workers, as
// dusk.Register, usually in an init function.
func RegisterFunc(name string, fn Func) { funcs.Store(name, fn) }

func lookupFunc(name string) (Func, error) {
	fn, ok := funcs.Load(name)
	if !ok {
		return nil, fmt.Errorf("function %q is not registered: register it with dataframe.RegisterFunc(%q, fn) in every binary that runs workers", name, name)
	}
	return fn.(Func), nil
}

func checkFunc(name string, out *arrow.Schema) error {
	if _, err := lookupFunc(name); err != nil {
		return err
	}
	if out == nil || out.NumFields() == 0 {
		return fmt.Errorf("function %q: the output schema has no columns", name)
	}
	for _, f := range out.Fields() {
		if _, err := kernel.KindOf(f.Type); err != nil {
			return fmt.Errorf("function %q: output column %s: %w", name, f.Name, err)
		}
	}
	return nil
}

// schemaDiff describes how got's columns differ from want's, or is "".
func schemaDiff(want *arrow.Schema, got *arrow.Schema) string {
	var diffs []string
	for i, w := range want.Fields() {
		j := got.FieldIndices(w.Name)
		switch {
		case len(j) == 0:
			diffs = append(diffs, fmt.Sprintf("column %s (%s) is missing", w.Name, kernel.TypeName(w.Type)))
		case !kernel.SameType(got.Field(j[0]).Type, w.Type):
			diffs = append(diffs, fmt.Sprintf("column %s is %s, declared %s", w.Name, kernel.TypeName(got.Field(j[0]).Type), kernel.TypeName(w.Type)))
		case j[0] != i:
			diffs = append(diffs, fmt.Sprintf("column %s is at position %d, declared %d", w.Name, j[0], i))
		}
	}
	for _, g := range got.Fields() {
		if !want.HasField(g.Name) {
			diffs = append(diffs, fmt.Sprintf("column %s (%s) is not declared", g.Name, kernel.TypeName(g.Type)))
		}
	}
	return strings.Join(diffs, "; ")
}

// callFunc runs fn on rec and checks its output against out; where names
// the input in errors.
func callFunc(name string, out *arrow.Schema, rec arrow.Record, where string) (arrow.Record, error) {
	fn, err := lookupFunc(name)
	if err != nil {
		return nil, err
	}
	res, err := fn(rec)
	if err != nil {
		return nil, fmt.Errorf("function %q on %s: %w", name, where, err)
	}
	if res == nil {
		return nil, fmt.Errorf("function %q on %s returned no record", name, where)
	}
	if d := schemaDiff(out, res.Schema()); d != "" {
		res.Release()
		return nil, fmt.Errorf("function %q on %s: its output does not match the declared schema: %s", name, where, d)
	}
	return res, nil
}

// MapPartitions runs the function registered under name (RegisterFunc) on
// each partition; its output must have the columns of out, which is
// checked on every partition.
func (f *Frame) MapPartitions(name string, out *arrow.Schema) *Frame {
	if f.err != nil {
		return f
	}
	if err := checkFunc(name, out); err != nil {
		return failed(fmt.Errorf("MapPartitions: %w", err))
	}
	return &Frame{plan: newMapPartitions(f.plan, name, kernel.PlainSchema(out))}
}

type mapPartitions struct {
	child node
	fn    string
	out   *arrow.Schema
	tok   string
}

type funcArgs struct {
	Func string    `json:"func"`
	Out  []colSpec `json:"out"`
}

func newMapPartitions(child node, fn string, out *arrow.Schema) *mapPartitions {
	return &mapPartitions{child: child, fn: fn, out: out,
		tok: token("map-partitions", funcArgs{Func: fn, Out: specOf(out)}, child)}
}

func (m *mapPartitions) schema() *arrow.Schema      { return m.out }
func (m *mapPartitions) npartitions() int           { return m.child.npartitions() }
func (m *mapPartitions) name() string               { return m.tok }
func (m *mapPartitions) children() []node           { return []node{m.child} }
func (m *mapPartitions) with(c []node) node         { return newMapPartitions(c[0], m.fn, m.out) }
func (m *mapPartitions) partitioning() partitioning { return partitioning{} }
func (m *mapPartitions) explain() string            { return "map partitions " + m.fn }
func (m *mapPartitions) lower(l *lowering) []graph.Key {
	return l.mapParts(m.tok, opMapPartitions, mustJSON(funcArgs{Func: m.fn, Out: specOf(m.out)}), l.keys(m.child))
}

func mapPartitionsOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a funcArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opMapPartitions, err)
	}
	rec, err := recordIn(opMapPartitions, inputs[0])
	if err != nil {
		return nil, err
	}
	return callFunc(a.Func, schemaOf(a.Out), rec, "partition "+tc.Part())
}

// applyGroups calls a's function on each group's rows, in group order.
func applyGroups(tc *registry.Context, a *groupArgs, rec arrow.Record, ids []int32, n int) (arrow.Record, error) {
	// Rows of each group, in order: a counting sort by id.
	start := make([]int32, n+1)
	for _, g := range ids {
		if g >= 0 {
			start[g+1]++
		}
	}
	for g := 1; g <= n; g++ {
		start[g] += start[g-1]
	}
	rows := make([]int32, start[n])
	pos := append([]int32(nil), start[:n]...)
	for i, g := range ids {
		if g >= 0 {
			rows[pos[g]] = int32(i)
			pos[g]++
		}
	}
	out := schemaOf(a.Out)
	var results []arrow.Record
	defer func() {
		for _, r := range results {
			r.Release()
		}
	}()
	for g := range n {
		grp := kernel.TakeRecord(rec, rows[start[g]:start[g+1]])
		res, err := callFunc(a.Func, out, grp, fmt.Sprintf("a group of partition %s", tc.Part()))
		grp.Release()
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return kernel.ConcatRecords(out, results)
}

package ops

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// Func is a user function over a partition or a group's rows. It must not
// keep or release its input; it returns a record the caller owns.
type Func func(arrow.Record) (arrow.Record, error)

var Funcs sync.Map // name -> Func

func LookupFunc(name string) (Func, error) {
	fn, ok := Funcs.Load(name)
	if !ok {
		return nil, fmt.Errorf("function %q is not registered: register it with dataframe.RegisterFunc(%q, fn) in every binary that runs workers", name, name)
	}
	return fn.(Func), nil
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

// CallFunc runs fn on rec and checks its output against out; where names
// the input in errors.
func CallFunc(name string, out *arrow.Schema, rec arrow.Record, where string) (arrow.Record, error) {
	fn, err := LookupFunc(name)
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

type FuncArgs struct {
	Func string    `json:"func"`
	Out  []ColSpec `json:"out"`
}

func mapPartitionsOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a FuncArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpMapPartitions, err)
	}
	rec, err := RecordIn(OpMapPartitions, inputs[0])
	if err != nil {
		return nil, err
	}
	return CallFunc(a.Func, SchemaOf(a.Out), rec, "partition "+tc.Part())
}

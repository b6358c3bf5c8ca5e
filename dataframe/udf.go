package dataframe

import (
	"fmt"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// RegisterFunc makes fn callable by name from MapPartitions and
// GroupBy().Apply. Register it in every binary that runs workers, as
// dusk.Register, usually in an init function.
func RegisterFunc(name string, fn ops.Func) { ops.Funcs.Store(name, fn) }

func checkFunc(name string, out *arrow.Schema) error {
	if _, err := ops.LookupFunc(name); err != nil {
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
	return &Frame{plan: plan.NewMapPartitions(f.plan, name, kernel.PlainSchema(out))}
}

package worker

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// PanicError is a panic recovered from a task's operation.
type PanicError struct {
	Value any
	Stack string
}

// Error says the operation failed by a fault of code, not of the data: a
// panic is a bug, in the operation or in Dusk, and its stack is in Stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("the operation crashed (a bug: its stack is in the error's Stack): %v", e.Value)
}

// Run runs t on the values of its inputs, in the order of t.Inputs, and
// returns the result, which the caller owns; pieces are a shuffle unpack's
// (see registry.Context). A fused task runs its chain, releasing each
// intermediate result after its last use. A panic becomes a *PanicError
// carrying the stack.
func Run(ctx context.Context, t *graph.Task, inputs []any, pieces [][]any) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && kernel.IsDataFault(e) {
				result, err = nil, e // the data's fault, not a bug
				return
			}
			result, err = nil, &PanicError{Value: r, Stack: string(debug.Stack())}
		}
	}()
	gpu := t.Resources["GPU"] > 0
	if t.Op != graph.FusedOp {
		return runOne(ctx, t, inputs, pieces, gpu)
	}
	external := make(map[graph.Key]any, len(t.Inputs))
	for i, k := range t.Inputs {
		external[k] = inputs[i]
	}
	lastUse := make(map[graph.Key]int, len(t.Chain))
	for i, step := range t.Chain {
		for _, in := range step.Inputs {
			lastUse[in] = i
		}
	}
	owned := make(map[graph.Key]any, 2) // results of earlier steps
	defer func() {
		for _, v := range owned {
			registry.Release(v)
		}
	}()
	for i, step := range t.Chain {
		args := make([]any, len(step.Inputs))
		for j, in := range step.Inputs {
			if v, ok := owned[in]; ok {
				args[j] = v
			} else {
				args[j] = external[in]
			}
		}
		out, err := runOne(ctx, step, args, pieces, gpu)
		if err != nil {
			return nil, fmt.Errorf("in step %s: %w", step.Key, err)
		}
		for _, in := range step.Inputs {
			if v, ok := owned[in]; ok && lastUse[in] == i {
				registry.Release(v)
				delete(owned, in)
			}
		}
		owned[step.Key] = out
	}
	result = owned[t.Key]
	delete(owned, t.Key)
	return result, nil
}

// runOne runs one task, or one step of a fused task; gpu says the task
// holds a GPU.
func runOne(ctx context.Context, t *graph.Task, inputs []any, pieces [][]any, gpu bool) (any, error) {
	op, err := registry.Lookup(t.Op)
	if err != nil {
		return nil, err
	}
	return op(&registry.Context{Context: ctx, Key: t.Key, Inputs: t.Inputs, Pieces: pieces, GPU: gpu}, t.Args, inputs)
}

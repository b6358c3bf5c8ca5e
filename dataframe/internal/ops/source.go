package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/registry"
)

// SourceArgs wrap a source's own arguments with what the optimizer pushed
// into it.
type SourceArgs struct {
	Src  json.RawMessage `json:"src"`
	Cols []string        `json:"cols,omitempty"`
	Pred *expr.Node      `json:"pred,omitempty"`
}

// readWith reads a source's partition with read, given the columns to
// read (nil: all), then applies what was pushed into the source. Where
// the reader tests filters as it decodes (tests), it is given the
// predicate's tests of one column each (columnTests) and the extra tests,
// which may keep rows they fail (a join's filter, whose join drops them).
func readWith(name string, raw []byte, tests bool, extra []ColumnTest, read func(src []byte, cols []string, where []ColumnTest) (arrow.Record, error)) (arrow.Record, error) {
	var a SourceArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", name, err)
	}
	cols, pred := a.Cols, a.Pred
	var where []ColumnTest
	if tests && cols != nil && pred != nil {
		where, pred = columnTests(pred)
	}
	if tests {
		where = append(where, extra...)
	}
	if cols != nil && pred != nil {
		cols = slices.Clone(cols)
		for c := range pred.Columns(SetOf{}) {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	rec, err := read(a.Src, cols, where)
	if err != nil {
		return nil, err
	}
	if pred != nil {
		kept, err := filterOp(nil, &ExprArgs{Expr: pred}, rec)
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rec = kept
	}
	if a.Cols != nil && int(rec.NumCols()) != len(a.Cols) {
		out, err := selectOp(&SelectArgs{Columns: a.Cols}, rec)
		rec.Release()
		return out, err
	}
	return rec, nil
}

func fromIPCOp(_ *registry.Context, raw []byte, _ []any) (any, error) {
	return readWith(OpFromIPC, raw, false, nil, func(src []byte, _ []string, _ []ColumnTest) (arrow.Record, error) {
		var data []byte
		if err := json.Unmarshal(src, &data); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", OpFromIPC, err)
		}
		r, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", OpFromIPC, err)
		}
		defer r.Release()
		if !r.Next() {
			return nil, fmt.Errorf("%s: no record: %v", OpFromIPC, r.Err())
		}
		rec := r.Record()
		rec.Retain()
		return rec, nil
	})
}

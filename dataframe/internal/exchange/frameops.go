package exchange

import (
	"encoding/json"
	"fmt"

	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/registry"
)

const (
	OpLimit = "df-limit"
)

type LimitArgs struct {
	N    int           `json:"n"`
	Last bool          `json:"last,omitempty"`
	Out  []ops.ColSpec `json:"out"`
}

// LimitOp concatenates its inputs in order and keeps the first (or last) n
// rows.
func LimitOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a LimitArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpLimit, err)
	}
	rec, err := ConcatOp(nil, ops.MustJSON(ops.ConcatArgs{Out: a.Out}), inputs)
	if err != nil {
		return nil, err
	}
	r := rec.(arrow.Record)
	defer r.Release()
	if a.Last {
		return ops.TailOf(r, a.N), nil
	}
	r.Retain()
	if int64(a.N) < r.NumRows() {
		defer r.Release()
		return r.NewSlice(0, int64(a.N)), nil
	}
	return r, nil
}

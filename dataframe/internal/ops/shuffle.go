package ops

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
)

func RecordIn(op string, v any) (arrow.Record, error) {
	rec, ok := v.(arrow.Record)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, not a dataframe partition", op, v)
	}
	return rec, nil
}

// ConcatArgs carry the output's columns, for when there are no pieces.
type ConcatArgs struct {
	Out []ColSpec `json:"out"`
}

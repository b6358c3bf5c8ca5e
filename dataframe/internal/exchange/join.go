package exchange

import (
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/duskdata/dusk/internal/kernel"
)

// JoinCol is a result column: a side's column, or a key both sides share.
type JoinCol struct {
	Side int    `json:"side"`
	Src  string `json:"src"`
	Name string `json:"name"`
	Key  int    `json:"key"` // for a shared key, its position in On; else -1
}

type JoinSpec struct {
	How       kernel.JoinType `json:"how"`
	LeftOn    []string        `json:"left_on"`
	RightOn   []string        `json:"right_on"`
	Cols      []JoinCol       `json:"cols"`
	Broadcast int64           `json:"-"`
}

type JoinArgs struct {
	JoinSpec
	Left      []ops.ColSpec `json:"left"`
	Right     []ops.ColSpec `json:"right"`
	LeftParts int           `json:"left_parts"` // partitions of the left side
}

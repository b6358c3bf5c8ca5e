package agg

import (
	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/internal/kernel"
)

const (
	OpPartial   = "df-agg-partial"
	OpCombine   = "df-agg-combine"
	OpFinal     = "df-agg-final"
	OpUnpack    = "df-agg-unpack"
	OpGroupRows = "df-group-rows"
)

type Spec struct {
	Fn   string  `json:"fn,omitempty"`
	Col  string  `json:"col,omitempty"`
	Col2 string  `json:"col2,omitempty"`
	Q    float64 `json:"q,omitempty"`
	As   string  `json:"as"`
	// OrNull: a group with no value answers null, not 0 (SQL's sum).
	OrNull bool `json:"or_null,omitempty"`
}

// final is the answer of s's aggregation fn from its state.
func (s Spec) final(fn kernel.AggFunc, state []arrow.Array) arrow.Array {
	if s.OrNull {
		return kernel.FinalOrNull(fn, state)
	}
	return kernel.Final(fn, state)
}

// The ways a grouped step treats its groups once they are together.
const (
	ModeAgg       = "agg"       // a row per group of aggregates
	ModeTransform = "transform" // each row with its group's aggregates
	ModeTopN      = "topn"      // each group's best k rows
	ModeApply     = "apply"     // a registered function of each group's rows
)

type GroupArgs struct {
	Keys []string `json:"keys"`
	Aggs []Spec   `json:"aggs,omitempty"`
	Mode string   `json:"mode,omitempty"`
	// topn: the column ranked, how many rows and which end.
	Col     string `json:"col,omitempty"`
	K       int    `json:"k,omitempty"`
	Largest bool   `json:"largest,omitempty"`
	// apply: the registered function.
	Func string `json:"func,omitempty"`
	// Out is the step's output, for partitions that get no rows.
	Out []ops.ColSpec `json:"out"`
	// Sort orders an aggregation's groups by their keys.
	Sort bool `json:"sort,omitempty"`
	// NullKeys: a null key groups with its column's other nulls, rather
	// than leaving its row out (kernel.GroupKeysNulls).
	NullKeys bool `json:"null_keys,omitempty"`
}

// groupKeys numbers the groups of a batch's keys (kernel.GroupKeys), with
// null keys groups of their own where NullKeys says so.
func (a *GroupArgs) groupKeys(keys []arrow.Array, ids []int32) ([]int32, []arrow.Array) {
	if a.NullKeys {
		return kernel.GroupKeysNulls(keys, ids)
	}
	return kernel.GroupKeys(keys, ids)
}

// groupPieces is groupKeys over the keys of several pieces (kernel.GroupPieces).
func (a *GroupArgs) groupPieces(pieces [][]arrow.Array) ([][]int32, []arrow.Array, error) {
	if a.NullKeys {
		return kernel.GroupPiecesNulls(pieces)
	}
	return kernel.GroupPieces(pieces)
}

// Holistic reports whether a's groups need all their rows together, which
// takes a shuffle rather than a tree reduction.
func (a *GroupArgs) Holistic() bool {
	if a.Mode != "" && a.Mode != ModeAgg {
		return true
	}
	for _, s := range a.Aggs {
		if fn, err := kernel.ParseAggFunc(s.Fn); err == nil && fn.Holistic() {
			return true
		}
	}
	return false
}

// AllRows is the hidden key Frame.Agg groups every row under.
const AllRows = "__all_rows"

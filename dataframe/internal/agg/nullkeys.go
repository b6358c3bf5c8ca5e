package agg

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// groupKeys numbers the groups of keys as kernel.GroupKeys does (which
// leaves a row with a null key out of every group), or, with nullKeys, with
// a null key a value of its own that groups with its column's other nulls
// (KeepNullKeys: SQL's GROUP BY, Polars', pandas' dropna=False). Keys
// without nulls, the common case, take the kernel's path as they are.
func groupKeys(keys []arrow.Array, ids []int32, nullKeys bool) ([]int32, []arrow.Array) {
	if !nullKeys || !anyNull(keys) {
		return kernel.GroupKeys(keys, ids)
	}
	// A column holding nulls is grouped as two: whether the row's key is
	// null, and the column with those rows given a valid row's value (the
	// kernels leave a null key out). The groups' keys are the rows' own.
	var grouping []arrow.Array
	for _, k := range keys {
		if k.NullN() == 0 {
			k.Retain()
			grouping = append(grouping, k)
			continue
		}
		isNull := make([]uint8, k.Len())
		take := make([]int32, k.Len())
		valid := int32(-1)
		for i := range take {
			if k.IsNull(i) {
				isNull[i] = 1
				continue
			}
			take[i] = int32(i)
			if valid < 0 {
				valid = int32(i)
			}
		}
		grouping = append(grouping, kernel.NewBool(isNull, nil))
		if valid >= 0 { // else every row is null: the first column says so
			for i := range take {
				if isNull[i] == 1 {
					take[i] = valid
				}
			}
			grouping = append(grouping, kernel.Take(k, take))
		}
	}
	ids, firsts := kernel.GroupRows(grouping, ids)
	for _, g := range grouping {
		g.Release()
	}
	out := make([]arrow.Array, len(keys))
	for c, k := range keys {
		out[c] = kernel.Take(k, firsts)
	}
	return ids, out
}

// groupPieces is kernel.GroupPieces with groupKeys' null keys: pieces
// holding a null key are concatenated and grouped as one.
func groupPieces(pieces [][]arrow.Array, nullKeys bool) ([][]int32, []arrow.Array, error) {
	if !nullKeys || !anyPieceNull(pieces) {
		return kernel.GroupPieces(pieces)
	}
	cols := make([]arrow.Array, len(pieces[0]))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for c := range cols {
		parts := make([]arrow.Array, len(pieces))
		for p, piece := range pieces {
			parts[p] = piece[c]
		}
		var err error
		if cols[c], err = kernel.ConcatDict(parts); err != nil {
			return nil, nil, fmt.Errorf("key %d: %w", c, err)
		}
	}
	all, keys := groupKeys(cols, nil, true)
	ids := make([][]int32, len(pieces))
	for p, piece := range pieces {
		n := piece[0].Len()
		ids[p], all = all[:n:n], all[n:]
	}
	return ids, keys, nil
}

func anyNull(cols []arrow.Array) bool {
	for _, c := range cols {
		if c.NullN() > 0 {
			return true
		}
	}
	return false
}

func anyPieceNull(pieces [][]arrow.Array) bool {
	for _, p := range pieces {
		if anyNull(p) {
			return true
		}
	}
	return false
}

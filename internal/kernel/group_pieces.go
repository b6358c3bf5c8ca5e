package kernel

import (
	"fmt"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/alloc"
)

// GroupPieces numbers the groups of equal rows of pieces, each the same
// key columns, as GroupRows numbers those of the pieces concatenated:
// ids[p][i] is row i of piece p's group (-1 where a key is null), and keys
// are the groups' key columns, in order of first appearance, which the
// caller releases. Keys of plain strings (of at most maxPackedString
// bytes), with integers or booleans beside them, are packed piece by piece
// and the groups' keys rebuilt from their words: a combine of an
// aggregation's many pieces copies no string twice (concatenated, then
// packed, then taken); pieces of PackedStrings group as the strings they
// pack, and the groups' strings come back packed where any piece's were;
// groups too many for one table in the L2 cache go by radix parts of
// their words (groupPackedRadix). Other keys are concatenated (packed
// strings unpacked) and grouped by GroupRows.
func GroupPieces(pieces [][]arrow.Array) (ids [][]int32, keys []arrow.Array, err error) {
	return groupPieces(pieces, false)
}

// GroupPiecesNulls is GroupPieces with a null key a value of its own, as
// GroupKeysNulls groups; pieces holding a null key are concatenated.
func GroupPiecesNulls(pieces [][]arrow.Array) (ids [][]int32, keys []arrow.Array, err error) {
	return groupPieces(pieces, true)
}

func groupPieces(pieces [][]arrow.Array, nullKeys bool) (ids [][]int32, keys []arrow.Array, err error) {
	if len(pieces) == 0 {
		return nil, nil, fmt.Errorf("group pieces: none")
	}
	nullKeys = nullKeys && anyPieceNull(pieces)
	if k, nulls, ok := packPieces(pieces); ok && !nullKeys {
		hashes := k.hashes()
		n := len(hashes)
		var all []int32
		var gwords []uint64
		if groups := estimateGroups(hashes); n < radixGroupMin || groups <= radixGroupsMin {
			all, _, gwords = groupTable(hashes, groups, k, nil, nulls, alloc.NoZeroOf[int32](n))
		} else {
			all, gwords = groupPackedRadix(hashes, groups, k, nulls)
		}
		return splitRows(all, pieces), unpackKeys(pieces, gwords, k.w), nil
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
			parts[p] = UnpackStrings(piece[c])
			defer parts[p].Release()
		}
		if cols[c], err = ConcatDict(parts); err != nil {
			return nil, nil, fmt.Errorf("key %d: %w", c, err)
		}
	}
	var all []int32
	if nullKeys {
		all, keys = GroupKeysNulls(cols, nil)
	} else {
		all, keys = GroupKeys(cols, nil)
	}
	return splitRows(all, pieces), keys, nil
}

// groupPackedRadix groups packed keys of more groups than one table in
// the L2 cache holds, as groupRadix groups columns: the rows are laid out
// by the top bits of their hashes, with their words, into parts of about
// radixGroupsMin/2 groups, each grouped by groupTable, and the groups are
// renumbered in order of their first rows. It returns each row's group
// (-1 where nulls marks it) and each group's words.
func groupPackedRadix(hashes []uint64, groups int, k packedKeys, nulls []byte) ([]int32, []uint64) {
	n, w := len(hashes), k.w
	pbits := 1
	for groups>>pbits > radixGroupsMin/2 && pbits < 10 {
		pbits++
	}
	shift := 64 - pbits
	ids := alloc.NoZeroOf[int32](n) // each row's group, or -1, written below
	start := radixStarts(hashes, nulls, ids, pbits)
	m := start[len(start)-1]
	// rows, phash and pwords have every entry written below.
	rows, phash, pwords := alloc.NoZeroOf[int32](m), alloc.NoZeroOf[uint64](m), alloc.NoZeroOf[uint64](m*w)
	pos := slices.Clone(start[:len(start)-1])
	for i, h := range hashes {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) != 0 {
			continue
		}
		p := h >> shift
		at := pos[p]
		rows[at], phash[at] = int32(i), h
		copy(pwords[at*w:at*w+w], k.words[i*w:i*w+w])
		pos[p]++
	}
	// Each part's groups, numbered on from the last part's.
	pids := alloc.NoZeroOf[int32](m) // each row's group, in part order
	var gwords []uint64
	firstRows := make([]int32, 0, groups)
	for p := range len(start) - 1 {
		lo, hi := start[p], start[p+1]
		if lo == hi {
			continue
		}
		base := int32(len(firstRows))
		part := packedKeys{w: w, words: pwords[lo*w : hi*w]}
		local, firsts, gw := groupTable(phash[lo:hi], groups>>pbits, part, nil, nil, pids[lo:hi])
		for j := range local {
			local[j] += base
		}
		for _, f := range firsts {
			firstRows = append(firstRows, rows[lo+int(f)])
		}
		gwords = append(gwords, gw...)
	}
	final, order := firstOrder(firstRows, n)
	for j, i := range rows {
		ids[i] = final[pids[j]]
	}
	ordered := alloc.NoZeroOf[uint64](len(gwords)) // every group's words copied below
	for g, old := range order {
		copy(ordered[g*w:g*w+w], gwords[int(old)*w:int(old+1)*w])
	}
	return ids, ordered
}

// GroupKeys numbers the groups of the key columns (GroupRows, into ids if
// large enough) and returns the row ids and each group's keys, which the
// caller releases.
func GroupKeys(cols []arrow.Array, ids []int32) ([]int32, []arrow.Array) {
	ids, firsts := GroupRows(cols, ids)
	keys := make([]arrow.Array, len(cols))
	for c, col := range cols {
		if len(firsts) == col.Len() {
			// Every row is its own group, and firsts, rising, is 0..n-1:
			// the columns are already the groups' keys.
			col.Retain()
			keys[c] = col
			continue
		}
		keys[c] = Take(col, firsts)
	}
	return ids, keys
}

// GroupKeysNulls is GroupKeys (which leaves a row with a null key out of
// every group) with a null key a value of its own that groups with its
// column's other nulls (KeepNullKeys: SQL's GROUP BY, Polars', pandas'
// dropna=False). Keys without nulls, the common case, group as GroupKeys
// groups them; a column holding nulls is grouped as two, whether the row's
// key is null and the column with those rows given a valid row's value,
// and the groups' keys are the rows' own, taken at each group's first row.
func GroupKeysNulls(cols []arrow.Array, ids []int32) ([]int32, []arrow.Array) {
	if !AnyNull(cols) {
		return GroupKeys(cols, ids)
	}
	var grouping []arrow.Array
	for _, k := range cols {
		if k.NullN() == 0 {
			k.Retain()
			grouping = append(grouping, k)
			continue
		}
		valid, off := Validity(k)
		isNull := make([]uint8, k.Len())
		take := make([]int32, k.Len())
		first := int32(-1) // a row with a value
		for i := range take {
			if !IsValid(valid, off, i) {
				isNull[i] = 1
				continue
			}
			take[i] = int32(i)
			if first < 0 {
				first = int32(i)
			}
		}
		grouping = append(grouping, NewBool(isNull, nil))
		if first >= 0 { // else every row is null: the first column says so
			for i := range take {
				if isNull[i] == 1 {
					take[i] = first
				}
			}
			grouping = append(grouping, Take(k, take))
		}
	}
	ids, firsts := GroupRows(grouping, ids)
	for _, g := range grouping {
		g.Release()
	}
	keys := make([]arrow.Array, len(cols))
	for c, k := range cols {
		keys[c] = Take(k, firsts)
	}
	return ids, keys
}

// AnyNull reports whether a column holds a null.
func AnyNull(cols []arrow.Array) bool {
	for _, c := range cols {
		if c.NullN() > 0 {
			return true
		}
	}
	return false
}

func anyPieceNull(pieces [][]arrow.Array) bool {
	for _, p := range pieces {
		if AnyNull(p) {
			return true
		}
	}
	return false
}

// splitRows cuts the ids of the pieces' rows, in order, into each piece's.
func splitRows(all []int32, pieces [][]arrow.Array) [][]int32 {
	ids := make([][]int32, len(pieces))
	for p, piece := range pieces {
		n := piece[0].Len()
		ids[p], all = all[:n:n], all[n:]
	}
	return ids
}

// packPieces packs the keys of every piece into one run of words, as
// packKeys packs one's, with a bitmap of the rows with a null key (nil for
// none); ok is false for keys that do not pack or that unpackKeys cannot
// rebuild exactly (floats, whose -0 and NaNs pack as 0 and one NaN), for
// keys without a string (integers compare where they lie), and for pieces
// whose key types differ (but plain and packed strings, which pack alike).
func packPieces(pieces [][]arrow.Array) (k packedKeys, nulls []byte, ok bool) {
	if len(pieces[0]) == 0 {
		return packedKeys{}, nil, false
	}
	w, n, strs := 0, 0, false
	for c, col := range pieces[0] {
		switch col.(type) {
		case *array.String, *packedStringsArray:
			strs = true
		case *array.Int64, *array.Boolean:
		default:
			return packedKeys{}, nil, false
		}
		w += packedWidth(pieces[0][c])
	}
	if !strs || w > maxPackedWords {
		return packedKeys{}, nil, false
	}
	for _, piece := range pieces {
		for c, col := range piece {
			if !sameKeyType(col.DataType(), pieces[0][c].DataType()) {
				return packedKeys{}, nil, false
			}
			if s, ok := col.(*array.String); ok && longestString(s) > maxPackedString {
				return packedKeys{}, nil, false
			}
		}
		n += piece[0].Len()
	}
	k = packedKeys{w: w, words: alloc.NoZeroOf[uint64](n * w)} // pack writes every word
	row := 0
	for _, piece := range pieces {
		rows := piece[0].Len()
		at := packedKeys{w: w, words: k.words[row*w : (row+rows)*w]}
		word := 0
		for _, col := range piece {
			at.pack(col, word)
			word += packedWidth(col)
			nulls = markNulls(nulls, n, col, row)
		}
		row += rows
	}
	return k, nulls, true
}

// sameKeyType reports whether keys of types a and b group together: the
// same type, or strings plain in one and packed in the other.
func sameKeyType(a, b arrow.DataType) bool {
	str := func(t arrow.DataType) bool { return t.ID() == arrow.STRING || arrow.TypeEqual(t, PackedStrings) }
	return arrow.TypeEqual(a, b) || str(a) && str(b)
}

// unpackKeys rebuilds the key columns of the pieces' types (as packPieces
// takes them) from each group's w words: strings packed where any piece's
// were (the combine of a shuffle's pieces, whose next combine copies the
// words and whose last unpacks them), else plain.
func unpackKeys(pieces [][]arrow.Array, gwords []uint64, w int) []arrow.Array {
	groups := len(gwords) / w
	out := make([]arrow.Array, len(pieces[0]))
	at := 0
	for c, col := range pieces[0] {
		switch col.(type) {
		case *array.Int64:
			vals := make([]int64, groups)
			for g := range vals {
				vals[g] = int64(gwords[g*w+at])
			}
			out[c] = NewInt64(vals, nil)
		case *array.Boolean:
			vals := make([]uint8, groups)
			for g := range vals {
				vals[g] = uint8(gwords[g*w+at])
			}
			out[c] = NewBool(vals, nil)
		default: // strings
			if anyPacked(pieces, c) {
				out[c] = packedOfWords(gwords, w, at)
			} else {
				out[c] = stringsOfWords(gwords, w, at)
			}
		}
		at += packedWidth(col)
	}
	return out
}

// anyPacked reports whether any piece's column c is PackedStrings.
func anyPacked(pieces [][]arrow.Array, c int) bool {
	for _, p := range pieces {
		if IsPackedStrings(p[c]) {
			return true
		}
	}
	return false
}

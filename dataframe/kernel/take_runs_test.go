package kernel

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// Walking parts in step gives what concatenating them and taking does.
func TestTakeAscending(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	sizes := []int{5, 0, 33, 1, 20}
	doffs, ddata := stringOffsets([]string{"a", "bb", "ccc"})
	dict := NewString(doffs, ddata, nil)
	var ints, floats, strs, dicts, mixed []arrow.Array
	total := 0
	for k, n := range sizes {
		iv, fv, sv, dv := make([]int64, n), make([]float64, n), make([]string, n), make([]int32, n)
		valid := make([]byte, (n+7)/8)
		for i := range n {
			iv[i], fv[i], sv[i], dv[i] = r.Int63(), r.Float64(), fmt.Sprint("s", r.Intn(99)), int32(r.Intn(3))
			if r.Intn(4) != 0 {
				valid[i/8] |= 1 << (i % 8)
			}
		}
		ints = append(ints, NewInt64(iv, valid))
		floats = append(floats, NewFloat64(fv, nil))
		offs, data := stringOffsets(sv)
		strs = append(strs, NewString(offs, data, valid))
		dicts = append(dicts, NewDict(dv, dict, valid))
		if k%2 == 0 {
			mixed = append(mixed, NewDict(dv, dict, valid))
		} else {
			mixed = append(mixed, NewString(offs, data, valid))
		}
		total += n
	}
	idx := make([]int32, 150)
	for j := range idx {
		idx[j] = int32(r.Intn(total))
	}
	slices.Sort(idx)
	for name, parts := range map[string][]arrow.Array{"int": ints, "float": floats, "string": strs, "dict": dicts, "mixed": mixed} {
		whole, err := Concat(PlainType(parts[0].DataType()), parts)
		if err != nil {
			t.Fatal(err)
		}
		want := Take(whole, idx)
		got := TakeAscending(parts, idx)
		if _, ok := got.(*array.Dictionary); ok {
			plain, _ := Concat(String, []arrow.Array{got})
			got = plain
		}
		if !array.Equal(got, want) {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
	}
}

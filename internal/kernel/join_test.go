package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

var allJoinTypes = []JoinType{Inner, Left, Right, Outer}

// refJoin joins by comparing every left row with every right row: null
// keys match, floats by value with NaN matching NaN (col.key).
func refJoin(left, right []col, how JoinType) (li, ri []int) {
	nl, nr := 0, 0
	if len(left) > 0 {
		nl, nr = left[0].len(), right[0].len()
	}
	lk, rk := make([]string, nl), make([]string, nr)
	for i := range lk {
		lk[i] = rowKey(left, i)
	}
	for j := range rk {
		rk[j] = rowKey(right, j)
	}
	if how == Right {
		ri, li = refJoinRows(rk, lk, Left)
		return li, ri
	}
	return refJoinRows(lk, rk, how)
}

func refJoinRows(lk, rk []string, how JoinType) (li, ri []int) {
	matched := make([]bool, len(rk))
	for i, k := range lk {
		found := false
		for j, k2 := range rk {
			if k == k2 {
				li, ri = append(li, i), append(ri, j)
				found, matched[j] = true, true
			}
		}
		if !found && how != Inner {
			li, ri = append(li, i), append(ri, -1)
		}
	}
	if how == Outer {
		for j, m := range matched {
			if !m {
				li, ri = append(li, -1), append(ri, j)
			}
		}
	}
	return li, ri
}

func checkPairs(t *testing.T, gotL, gotR []int32, wantL, wantR []int) {
	t.Helper()
	if len(gotL) != len(wantL) || len(gotR) != len(wantR) {
		t.Fatalf("%d/%d pairs, want %d\ngot  %v %v\nwant %v %v", len(gotL), len(gotR), len(wantL), head(gotL), head(gotR), head(wantL), head(wantR))
	}
	for k := range wantL {
		if int(gotL[k]) != wantL[k] || int(gotR[k]) != wantR[k] {
			t.Fatalf("pair %d: (%d, %d), want (%d, %d)", k, gotL[k], gotR[k], wantL[k], wantR[k])
		}
	}
}

// joinKeySets pairs left and right key types: plain with dictionary
// strings, several columns of mixed kinds.
var joinKeySets = []struct{ left, right []colType }{
	{[]colType{tInt}, []colType{tInt}},
	{[]colType{tFloat}, []colType{tFloat}},
	{[]colType{tString}, []colType{tString}},
	{[]colType{tString}, []colType{tDict}},
	{[]colType{tDict}, []colType{tDict}},
	{[]colType{tBool}, []colType{tBool}},
	{[]colType{tInt, tString}, []colType{tInt, tDict}},
	{[]colType{tInt, tInt}, []colType{tInt, tInt}}, // packed into one int64 where the build has no null
	{[]colType{tDict, tFloat, tBool}, []colType{tString, tFloat, tBool}},
}

// The small value pools make duplicate keys on both sides, and nulls
// both sides too.
func TestHashJoinMatchesReference(t *testing.T) {
	for _, ks := range joinKeySets {
		for _, how := range allJoinTypes {
			t.Run(fmt.Sprintf("%s-%s/%s", names(ks.left), names(ks.right), how), func(t *testing.T) {
				forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
					rs := s
					rs.n = rng.Intn(s.n + 2)
					left, right := genKeyCols(rng, ks.left, s), genKeyCols(rng, ks.right, rs)
					defer release(append(left, right...)...)
					li, ri, err := HashJoin(arrays(left), arrays(right), how)
					if err != nil {
						t.Fatal(err)
					}
					wl, wr := refJoin(left, right, how)
					checkPairs(t, li, ri, wl, wr)
				})
			})
		}
	}
}

// Unique int64 keys on the build side take a path of their own; one null
// key keeps them unique, two do not.
func TestHashJoinUniqueInt64(t *testing.T) {
	for _, how := range allJoinTypes {
		for _, nulls := range []int{0, 1, 2} {
			t.Run(fmt.Sprintf("%s/nulls=%d", how, nulls), func(t *testing.T) {
				for _, n := range []int{0, 1, 7, 1000} {
					rng := rand.New(rand.NewSource(int64(n)))
					rkeys := rng.Perm(2*n + 1)[:n] // unique
					rvalid := repeat(true, n)
					for i := 0; i < nulls && i < n; i++ {
						rvalid[rng.Intn(n)] = false
					}
					lkeys := make([]any, n+3)
					for i := range lkeys {
						if rng.Intn(10) == 0 {
							lkeys[i] = nil
						} else {
							lkeys[i] = rng.Intn(2*n + 1)
						}
					}
					ranys := make([]any, n)
					for i, k := range rkeys {
						if rvalid[i] {
							ranys[i] = k
						}
					}
					l, r := ints(lkeys...), ints(ranys...)
					left, right := readCol(t, l), readCol(t, r)
					li, ri, err := HashJoin([]arrow.Array{l}, []arrow.Array{r}, how)
					if err != nil {
						t.Fatal(err)
					}
					wl, wr := refJoin([]col{left}, []col{right}, how)
					checkPairs(t, li, ri, wl, wr)
					l.Release()
					r.Release()
				}
			})
		}
	}
}

func TestHashJoinExamples(t *testing.T) {
	nan := math.NaN()
	l := []arrow.Array{ints(1, 2, 2, nil, 5)}
	r := []arrow.Array{ints(2, nil, 1, 2, 7)}
	tests := []struct {
		name        string
		left, right []arrow.Array
		how         JoinType
		wantL       []int
		wantR       []int
	}{
		{"inner", l, r, Inner, []int{0, 1, 1, 2, 2, 3}, []int{2, 0, 3, 0, 3, 1}},
		{"left", l, r, Left, []int{0, 1, 1, 2, 2, 3, 4}, []int{2, 0, 3, 0, 3, 1, -1}},
		{"right", l, r, Right, []int{1, 2, 3, 0, 1, 2, -1}, []int{0, 0, 1, 2, 3, 3, 4}},
		{"outer", l, r, Outer, []int{0, 1, 1, 2, 2, 3, 4, -1}, []int{2, 0, 3, 0, 3, 1, -1, 4}},
		{"NaN matches NaN, -0 matches 0", []arrow.Array{floats(nan, 0.0, 1.0)}, []arrow.Array{floats(math.Copysign(0, -1), nan)}, Inner, []int{0, 1}, []int{1, 0}},
		{"plain with dictionary", []arrow.Array{strs("a", "b", nil)}, []arrow.Array{dictStrs([]string{"x", "b", "a"}, nil, "a", "x")}, Outer, []int{0, 1, 2, -1}, []int{1, -1, 0, 2}},
		{"two keys", []arrow.Array{ints(1, 1, 2), strs("a", "b", "a")}, []arrow.Array{ints(1, 2, 1), dictStrs([]string{"a", "b"}, "b", "a", "a")}, Inner, []int{0, 1, 2}, []int{2, 0, 1}},
		{"no rows", []arrow.Array{ints()}, []arrow.Array{ints(1)}, Outer, []int{-1}, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			li, ri, err := HashJoin(tt.left, tt.right, tt.how)
			if err != nil {
				t.Fatal(err)
			}
			checkPairs(t, li, ri, tt.wantL, tt.wantR)
		})
	}
}

func TestHashJoinTypeMismatch(t *testing.T) {
	tests := []struct {
		name        string
		left, right []arrow.Array
		want        []string
	}{
		{"int with float", []arrow.Array{ints(1)}, []arrow.Array{floats(1.0)}, []string{"key 0", "int64", "float64"}},
		{"second key", []arrow.Array{ints(1), strs("a")}, []arrow.Array{ints(1), bools(true)}, []string{"key 1", "string", "bool"}},
		{"dictionary with int", []arrow.Array{dictStrs([]string{"a"}, "a")}, []arrow.Array{ints(1)}, []string{"key 0", "string", "int64"}},
		{"key counts", []arrow.Array{ints(1)}, []arrow.Array{ints(1), ints(2)}, []string{"1 left and 2 right"}},
		{"no keys", nil, nil, []string{"0 left"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := HashJoin(tt.left, tt.right, Inner)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	if _, _, err := HashJoin([]arrow.Array{ints(1)}, []arrow.Array{ints(1)}, JoinType(9)); err == nil {
		t.Errorf("JoinType(9) joined")
	}
}

func TestJoinTypeString(t *testing.T) {
	for i, want := range []string{"inner", "left", "right", "outer", "semi", "anti", "JoinType(6)"} {
		if got := JoinType(i).String(); got != want {
			t.Errorf("JoinType(%d) is %q, want %q", i, got, want)
		}
	}
}

// BenchmarkHashJoinInt64 inner-joins 1,000,000 rows with 1,000,000 on a
// unique int64 key (shuffled on both sides), half of them matching.
func BenchmarkHashJoinInt64(b *testing.B) {
	const rows = 1_000_000
	rng := rand.New(rand.NewSource(1))
	lkeys, rkeys := make([]int64, rows), make([]int64, rows)
	for i, k := range rng.Perm(rows) {
		lkeys[i] = int64(k) * 2
	}
	for i, k := range rng.Perm(rows) {
		rkeys[i] = int64(k) * 4 // the even ones of left's, and as many others
	}
	l, r := []arrow.Array{NewInt64(lkeys, nil)}, []arrow.Array{NewInt64(rkeys, nil)}
	for _, how := range []JoinType{Inner, Outer} {
		b.Run(how.String(), func(b *testing.B) {
			b.SetBytes(2 * rows * 8)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, _, err := HashJoin(l, r, how); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*rows*float64(b.N)/time.Since(start).Seconds(), "rows/s")
		})
	}
}

// BenchmarkSemiJoinFewKeys semi-joins 1,000,000 keys of 200,000 values
// with 1,333 of them, as TPC-H's q8 and q17 probe lineitem with the parts
// of one type: most probes miss, which the table's filter answers.
func BenchmarkSemiJoinFewKeys(b *testing.B) {
	const rows, values, few = 1_000_000, 200_000, 1_333
	rng := rand.New(rand.NewSource(2))
	pkeys, bkeys := make([]int64, rows), make([]int64, few)
	for i := range pkeys {
		pkeys[i] = rng.Int63n(values)
	}
	for i, k := range rng.Perm(values)[:few] {
		bkeys[i] = int64(k)
	}
	l, r := []arrow.Array{NewInt64(pkeys, nil)}, []arrow.Array{NewInt64(bkeys, nil)}
	b.SetBytes(rows * 8)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, _, err := HashJoin(l, r, Semi); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(rows*float64(b.N)/time.Since(start).Seconds(), "rows/s")
}

// narrowKeys is int64 keys as int32, releasing a.
func narrowKeys(a arrow.Array) arrow.Array {
	defer a.Release()
	b := array.NewInt32Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range a.Len() {
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(int32(a.(*array.Int64).Value(i)))
		}
	}
	return b.NewArray()
}

// Single integer keys of int32 or int64 on either side, widened by neither
// (joinInts), join as the reference does: a build side large enough to be
// radix-partitioned and a small one, probe keys that mostly match and keys
// most of which match nothing, repeats and nulls on both sides.
func TestHashJoinIntKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	gen := func(n, distinct int) arrow.Array { return nullableKeys(rng, n, distinct) }
	keep := func(a arrow.Array) arrow.Array { return a }
	for _, w := range []struct {
		name        string
		left, right func(arrow.Array) arrow.Array
	}{{"int32-int32", narrowKeys, narrowKeys}, {"int32-int64", narrowKeys, keep}, {"int64-int32", keep, narrowKeys}} {
		for _, sz := range []struct{ left, right, distinct int }{{2000, 20000, 8000}, {5000, 20000, 400000}, {3000, 300, 200}, {300, 3000, 200}} {
			l, r := w.left(gen(sz.left, sz.distinct)), w.right(gen(sz.right, sz.distinct))
			for _, how := range []JoinType{Inner, Left, Right, Outer, Semi, Anti} {
				t.Run(fmt.Sprintf("%s/%dx%d/%s", w.name, sz.left, sz.right, how), func(t *testing.T) {
					checkKeyJoin(t, l, r, how)
				})
			}
			l.Release()
			r.Release()
		}
	}
}

// A build side large enough to be radix-partitioned, with repeated keys
// and nulls on both sides, joins as the reference does.
func TestHashJoinRadixInt64(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	gen := func(n, distinct int) []any {
		keys := make([]any, n)
		for i := range keys {
			if rng.Intn(25) != 0 {
				keys[i] = rng.Intn(distinct) - distinct/2
			}
		}
		return keys
	}
	r := ints(gen(20000, 8000)...)
	defer r.Release()
	// Left keys that mostly match, and keys of which most match nothing,
	// which the build keys' filter drops before the radix split.
	for _, l := range []arrow.Array{ints(gen(2000, 9000)...), ints(gen(5000, 400000)...)} {
		defer l.Release()
		for _, how := range []JoinType{Inner, Left, Outer, Semi, Anti} {
			checkKeyJoin(t, l, r, how)
		}
	}
}

// checkKeyJoin checks HashJoin of the single keys l and r against the
// reference: the pairs, or the left rows kept for a semi or anti join.
func checkKeyJoin(t *testing.T, l, r arrow.Array, how JoinType) {
	t.Helper()
	li, ri, err := HashJoin([]arrow.Array{l}, []arrow.Array{r}, how)
	if err != nil {
		t.Fatal(err)
	}
	if how == Semi || how == Anti {
		want := refFilter([]col{readCol(t, l)}, []col{readCol(t, r)}, how)
		checkPairs(t, li, li, want, want)
		return
	}
	wl, wr := refJoin([]col{readCol(t, l)}, []col{readCol(t, r)}, how)
	checkPairs(t, li, ri, wl, wr)
}

// A JoinTable built once gives every probe side, probing it from several
// goroutines at once, the reference's pairs: for a radix-partitioned int64
// key, a small one, int32 keys against either, and keys of two kinds, with
// repeats and nulls on both sides.
func TestJoinTableSharedByProbes(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	gen := func(n, distinct int) arrow.Array { return nullableKeys(rng, n, distinct) }
	from := func(n, lo, distinct int) arrow.Array {
		keys := make([]int64, n)
		for i := range keys {
			keys[i] = int64(lo + rng.Intn(distinct))
		}
		return NewInt64(keys, nil)
	}
	narrow := narrowKeys
	words := func(n int, pool ...string) arrow.Array {
		vals := make([]any, n)
		for i := range vals {
			vals[i] = pool[rng.Intn(len(pool))]
		}
		return strs(vals...)
	}
	for _, c := range []struct {
		name   string
		build  []arrow.Array
		probes [][]arrow.Array
	}{
		{"radix int64", []arrow.Array{gen(40000, 30000)},
			[][]arrow.Array{{gen(5000, 40000)}, {gen(7000, 40000)}, {gen(0, 1)}, {gen(3000, 40000)}, {gen(6000, 1000000)}}},
		{"small int64", []arrow.Array{gen(300, 200)}, [][]arrow.Array{{gen(1000, 300)}, {gen(900, 300)}}},
		// int32 probe keys are looked up unwidened, sifted where most miss.
		{"radix int32", []arrow.Array{narrow(gen(20000, 15000))},
			[][]arrow.Array{{narrow(gen(2000, 20000))}, {gen(2000, 20000)}, {narrow(gen(3000, 1000000))}, {narrow(gen(0, 1))}}},
		{"small int32", []arrow.Array{gen(300, 200)}, [][]arrow.Array{{narrow(gen(1000, 300))}, {narrow(gen(900, 300))}}},
		// Packed into one int64 key: the probes' nulls and values outside
		// the build's ranges match nothing.
		{"two ints", []arrow.Array{from(3000, -250, 500), from(3000, 3, 7)},
			[][]arrow.Array{{gen(2000, 300), gen(2000, 12)}, {from(5000, -100000, 200000), from(5000, 0, 12)}, {from(1000, -250, 500), from(1000, 3, 7)}}},
		{"int and string", []arrow.Array{gen(2000, 40), words(2000, "a", "b", "c", "d")},
			// The last probe mostly misses: its row hashes are sifted.
			[][]arrow.Array{{gen(1500, 50), words(1500, "b", "e", "a")}, {gen(10, 50), words(10, "c")}, {gen(3000, 2000), words(3000, "a", "e")}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer releaseArrays(c.build)
			for _, p := range c.probes {
				defer releaseArrays(p)
			}
			table, err := BuildJoin(c.build)
			if err != nil {
				t.Fatal(err)
			}
			defer table.Release()
			build := readCols(t, c.build)
			for _, how := range []JoinType{Inner, Left, Semi, Anti} {
				got := make([][2][]int32, len(c.probes))
				var wg sync.WaitGroup
				for i, p := range c.probes {
					wg.Go(func() {
						li, ri, err := table.Probe(p, how)
						if err != nil {
							t.Error(err)
						}
						got[i] = [2][]int32{li, ri}
					})
				}
				wg.Wait()
				for i, p := range c.probes {
					if how == Semi || how == Anti {
						want := refFilter(readCols(t, p), build, how)
						checkPairs(t, got[i][0], got[i][0], want, want)
						continue
					}
					wl, wr := refJoin(readCols(t, p), build, how)
					checkPairs(t, got[i][0], got[i][1], wl, wr)
				}
			}
		})
	}
}

// Marking a table's rows with several probe sides in turn marks the rows
// a semi join of the table's side with all of them together keeps.
func TestJoinTableMark(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	gen := func(n, distinct int) arrow.Array { return nullableKeys(rng, n, distinct) }
	for _, size := range []int{300, 20000} { // one table, and radix parts
		build := gen(size, size)
		probes := []arrow.Array{gen(size/8, 4*size), gen(size/6, 4*size), gen(0, 1)}
		table, err := BuildJoin([]arrow.Array{build})
		if err != nil {
			t.Fatal(err)
		}
		matched := make([]bool, size)
		for _, p := range probes {
			if err := table.Mark([]arrow.Array{p}, matched); err != nil {
				t.Fatal(err)
			}
		}
		// The reference: the build side semi-joined with all probe keys.
		all := readCol(t, probes[0])
		for _, p := range probes[1:] {
			c := readCol(t, p)
			all.valid, all.ints = append(all.valid, c.valid...), append(all.ints, c.ints...)
		}
		want := refFilter([]col{readCol(t, build)}, []col{all}, Semi)
		var got []int
		for r, ok := range matched {
			if ok {
				got = append(got, r)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%d rows: marked %d rows, want %d", size, len(got), len(want))
		}
		table.Release()
		build.Release()
		releaseArrays(probes)
	}
}

func readCols(t *testing.T, as []arrow.Array) []col {
	cols := make([]col, len(as))
	for i, a := range as {
		cols[i] = readCol(t, a)
	}
	return cols
}

// refFilter is a semi join's left rows (those with a match), or an anti
// join's (those without), by the reference's left join.
func refFilter(left, right []col, how JoinType) []int {
	li, ri := refJoin(left, right, Left)
	var out []int
	for k, i := range li {
		if (ri[k] >= 0) == (how == Semi) && (len(out) == 0 || out[len(out)-1] != i) {
			out = append(out, i)
		}
	}
	return out
}

// nullableKeys are n int64 keys in [0, distinct), one in 25 of them null.
func nullableKeys(rng *rand.Rand, n, distinct int) arrow.Array {
	keys := make([]any, n)
	for i := range keys {
		if rng.Intn(25) != 0 {
			keys[i] = rng.Intn(distinct)
		}
	}
	return ints(keys...)
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// BenchmarkJoinTableProbe probes a table of 1,500,000 int64 keys, built
// once, with partitions of 550,000 keys of which about one in a hundred
// matches: a broadcast side's table and the other side's partitions.
func BenchmarkJoinTableProbe(b *testing.B) {
	const build, probe = 1_500_000, 550_000
	rng := rand.New(rand.NewSource(3))
	keys := make([]any, build)
	for i := range keys {
		keys[i] = int64(i) * 10
	}
	pk := make([]any, probe)
	for i := range pk {
		pk[i] = rng.Int63n(build * 100)
	}
	bt, pt := ints(keys...), ints(pk...)
	defer bt.Release()
	defer pt.Release()
	benchProbe(b, bt, pt, Inner)
}

// benchProbe times probes of a table built once on build by probe's keys.
func benchProbe(b *testing.B, build, probe arrow.Array, how JoinType) {
	benchProbeKeys(b, []arrow.Array{build}, []arrow.Array{probe}, how)
}

func benchProbeKeys(b *testing.B, build, probe []arrow.Array, how JoinType) {
	table, err := BuildJoin(build)
	if err != nil {
		b.Fatal(err)
	}
	defer table.Release()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := table.Probe(probe, how); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(probe[0].Len())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// A join whose table is built on its left side gives the reference's
// pairs in HashJoin's order: on an int64 key, small and radix-partitioned,
// and on two keys, with repeats and nulls on both sides.
func TestHashJoinBuildLeft(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	gen := func(n, distinct int) arrow.Array { return nullableKeys(rng, n, distinct) }
	for _, c := range []struct {
		name        string
		left, right []arrow.Array
	}{
		{"small int64", []arrow.Array{gen(300, 200)}, []arrow.Array{gen(5000, 400)}},
		{"radix int64, sifted", []arrow.Array{gen(30000, 30000)}, []arrow.Array{gen(90000, 1000000)}},
		{"two keys", []arrow.Array{gen(500, 20), gen(500, 5)}, []arrow.Array{gen(4000, 30), gen(4000, 6)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer releaseArrays(c.left)
			defer releaseArrays(c.right)
			left, right := readCols(t, c.left), readCols(t, c.right)
			for _, how := range []JoinType{Inner, Left, Semi, Anti} {
				li, ri, err := HashJoinBuildLeft(c.left, c.right, how)
				if err != nil {
					t.Fatal(err)
				}
				if how == Semi || how == Anti {
					want := refFilter(left, right, how)
					checkPairs(t, li, li, want, want)
					continue
				}
				wl, wr := refJoin(left, right, how)
				checkPairs(t, li, ri, wl, wr)
			}
		})
	}
	if _, _, err := HashJoinBuildLeft([]arrow.Array{ints(1)}, []arrow.Array{ints(1)}, Outer); err == nil {
		t.Fatal("an outer join on a left table made no error")
	}
}

// BenchmarkSiftedProbe probes a broadcast table of 70,000 int64 keys with
// 1M keys of which 5% match (TPC-H's q21 probes lineitem with the orders
// of its late lines): the probe keys are sifted through the table's filter
// before its radix split.
func BenchmarkSiftedProbe(b *testing.B) {
	const build, probe, values = 70_000, 1_000_000, 6_000_000
	rng := rand.New(rand.NewSource(3))
	bkeys := make([]int64, build)
	for i, k := range rng.Perm(values)[:build] {
		bkeys[i] = int64(k)
	}
	pkeys := make([]int64, probe)
	for i := range pkeys {
		pkeys[i] = rng.Int63n(values)
	}
	benchProbe(b, NewInt64(bkeys, nil), NewInt64(pkeys, nil), Semi)
}

// BenchmarkHashedProbe probes a table of 400,000 rows of two int64 keys
// (TPC-H q9's part and supplier) with 1M rows of which 5% match, sifted
// through the table's filter of row hashes, or all do.
func BenchmarkHashedProbe(b *testing.B) {
	const build, probe = 400_000, 1_000_000
	rng := rand.New(rand.NewSource(3))
	b1, b2 := make([]int64, build), make([]int64, build)
	for i := range b1 {
		b1[i], b2[i] = int64(i), int64(i%1000)
	}
	for _, c := range []struct {
		name  string
		share int // of a hundred probe rows, those that match
	}{{"5% match", 5}, {"all match", 100}} {
		b.Run(c.name, func(b *testing.B) {
			p1, p2 := make([]int64, probe), make([]int64, probe)
			for i := range p1 {
				r := rng.Intn(build)
				p1[i], p2[i] = int64(r), int64(r%1000)
				if rng.Intn(100) >= c.share {
					p2[i]++ // a part of another supplier
				}
			}
			benchProbeKeys(b, []arrow.Array{NewInt64(b1, nil), NewInt64(b2, nil)}, []arrow.Array{NewInt64(p1, nil), NewInt64(p2, nil)}, Inner)
		})
	}
}

// TestHashJoinUnsignedWithSigned joins uint64 keys past int64's range with
// int64 keys: only equal numbers match (2^64-1 is not -1), and null keys,
// with either side built.
func TestHashJoinUnsignedWithSigned(t *testing.T) {
	ub := array.NewUint64Builder(memory.DefaultAllocator)
	ub.AppendValues([]uint64{math.MaxUint64, 5, 1 << 63, 0}, nil)
	ub.AppendNull()
	u := ub.NewArray()
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.AppendValues([]int64{-1, 5, math.MinInt64, 0, 7}, []bool{true, true, true, true, false})
	s := ib.NewArray()
	want := [][2]int32{{1, 1}, {3, 3}, {4, 4}} // 5, 0 and the null keys
	for _, swap := range []bool{false, true} {
		l, r := u, s
		if swap {
			l, r = s, u
		}
		li, ri, err := HashJoin([]arrow.Array{l}, []arrow.Array{r}, Inner)
		if err != nil {
			t.Fatal(err)
		}
		var got [][2]int32
		for i := range li {
			got = append(got, [2]int32{li[i], ri[i]})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("swap %v: pairs %v, want %v", swap, got, want)
		}
	}
}

package bench

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/duskdata/dusk/io/storage"
)

// GroupByRow is one row of db-benchmark's groupby table (groupby-datagen.R):
// id1, id2 of K values ("id001"); id3 of N/K values ("id0000000001");
// id4, id5 in 1..K; id6 in 1..N/K; v1 in 1..5; v2 in 1..15; v3 uniform in
// [0, 100) with 6 decimals.
type GroupByRow struct {
	ID1, ID2, ID3 string
	ID4, ID5, ID6 int64
	V1, V2        int64
	V3            float64
}

// GroupByGen generates the rows of a groupby table of n rows and k groups,
// the same for the same seed.
type GroupByGen struct {
	n, k int
	r    *rand.Rand
}

// NewGroupByGen returns a generator of n rows with k groups.
func NewGroupByGen(n, k int, seed uint64) *GroupByGen {
	return &GroupByGen{n: n, k: max(k, 1), r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// Next returns the next row's values as numbers: ids 1-based, v3 in
// millionths (v3 = V3Micros / 1e6).
func (g *GroupByGen) next() (id1, id2, id3, id4, id5, id6, v1, v2, v3micros int64) {
	k, nk := int64(g.k), int64(max(g.n/g.k, 1))
	r := g.r
	return r.Int64N(k) + 1, r.Int64N(k) + 1, r.Int64N(nk) + 1,
		r.Int64N(k) + 1, r.Int64N(k) + 1, r.Int64N(nk) + 1,
		r.Int64N(5) + 1, r.Int64N(15) + 1, r.Int64N(100_000_000)
}

// Row returns the next row.
func (g *GroupByGen) Row() GroupByRow {
	id1, id2, id3, id4, id5, id6, v1, v2, v3 := g.next()
	return GroupByRow{
		ID1: idString(id1, 3), ID2: idString(id2, 3), ID3: idString(id3, 10),
		ID4: id4, ID5: id5, ID6: id6, V1: v1, V2: v2, V3: float64(v3) / 1e6,
	}
}

// GroupByHeader is the CSV header of the groupby table.
const GroupByHeader = "id1,id2,id3,id4,id5,id6,v1,v2,v3"

// WriteGroupByCSV writes a groupby table of n rows and k groups as CSV.
func WriteGroupByCSV(w io.Writer, n, k int, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(GroupByHeader + "\n")
	g := NewGroupByGen(n, k, seed)
	line := make([]byte, 0, 96)
	for i := 0; i < n; i++ {
		id1, id2, id3, id4, id5, id6, v1, v2, v3 := g.next()
		line = appendID(line[:0], id1, 3)
		line = append(line, ',')
		line = appendID(line, id2, 3)
		line = append(line, ',')
		line = appendID(line, id3, 10)
		for _, v := range [...]int64{id4, id5, id6, v1, v2} {
			line = append(line, ',')
			line = strconv.AppendInt(line, v, 10)
		}
		line = append(line, ',')
		line = appendMicros(line, v3)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func idString(v int64, width int) string { return string(appendID(nil, v, width)) }

// appendID appends "id" and v padded with zeros to width digits.
func appendID(b []byte, v int64, width int) []byte {
	b = append(b, 'i', 'd')
	var digits [20]byte
	s := strconv.AppendInt(digits[:0], v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// appendMicros appends v/1e6 with 6 decimals.
func appendMicros(b []byte, v int64) []byte {
	b = strconv.AppendInt(b, v/1_000_000, 10)
	b = append(b, '.')
	frac := v % 1_000_000
	var digits [8]byte
	s := strconv.AppendInt(digits[:0], frac, 10)
	for i := len(s); i < 6; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// GroupByFileName is db-benchmark's name for a groupby table of n rows and
// k groups, such as G1_1e7_1e2_0_0.csv.
func GroupByFileName(n, k int) string {
	return fmt.Sprintf("G1_%s_%s_0_0.csv", sci(n), sci(k))
}

// sci writes n as db-benchmark does: 1e7 for 10,000,000, and 5e8 for
// 500,000,000 (one digit then zeros); plain digits otherwise.
func sci(n int) string {
	e := 0
	for m := n; m >= 10 && m%10 == 0; m /= 10 {
		e++
	}
	if d := n / max(pow10(e), 1); n > 0 && e > 0 && d < 10 {
		return fmt.Sprintf("%de%d", d, e)
	}
	return strconv.Itoa(n)
}

func pow10(e int) int {
	p := 1
	for ; e > 0; e-- {
		p *= 10
	}
	return p
}

// GroupByFile returns the path of the groupby table of n rows and k groups
// in dir, writing it first if it is not there, atomically, so a
// half-written file is never taken for a whole one.
func GroupByFile(dir string, n, k int) (string, error) {
	path := filepath.Join(dir, GroupByFileName(n, k))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	err := storage.WriteFile(path, true, func(w io.Writer) error { return WriteGroupByCSV(w, n, k, 1) })
	return path, err
}

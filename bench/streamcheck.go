package bench

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/bits"
	"text/tabwriter"
)

// StreamChecksums are the checksums of the ten groupby questions over the
// table of n rows and k groups that seed generates, computed in one pass
// over the generator's rows with a few numbers per group: the check of a
// table too large for the in-memory references (GroupByQuestions), such as
// 5e8 rows. Sums are exact integers where the values are (v3 in
// millionths), and a standard deviation or r² comes from exact sums. A
// median needs every value, so q6's first checksum is NaN: not checked.
func StreamChecksums(n, k int, seed uint64) map[string][]float64 {
	g := NewGroupByGen(n, k, seed)
	nk := max(n/max(k, 1), 1)
	type id3Group struct {
		v3    int64 // millionths
		rows  int32
		maxV1 int8
		minV2 int8
	}
	type id6Group struct{ top, second float64 } // -1: none yet
	type sdGroup struct {
		sum     int64
		squares [2]uint64 // 128 bits: hi, lo
		rows    int64
	}
	type r2Group struct{ n, x, y, xx, yy, xy int64 }
	by3 := make([]id3Group, nk)
	by6 := make([]id6Group, nk)
	for i := range by3 {
		by3[i].minV2 = math.MaxInt8
		by6[i] = id6Group{-1, -1}
	}
	by4 := make([][3]int64, k) // v1, v2, v3 sums
	rows4 := make([]int64, k)
	by45 := make([]sdGroup, k*k)
	by24 := make([]r2Group, k*k)
	var v1, v2, v3 int64
	for range n {
		_, id2, id3, id4, id5, id6, a, b, c := g.next()
		v1, v2, v3 = v1+a, v2+b, v3+c
		g3 := &by3[id3-1]
		g3.v3 += c
		g3.rows++
		g3.maxV1, g3.minV2 = max(g3.maxV1, int8(a)), min(g3.minV2, int8(b))
		s4 := &by4[id4-1]
		s4[0], s4[1], s4[2] = s4[0]+a, s4[1]+b, s4[2]+c
		rows4[id4-1]++
		sd := &by45[(id4-1)*int64(k)+id5-1]
		sd.sum += c
		sd.rows++
		hi, lo := bits.Mul64(uint64(c), uint64(c))
		var carry uint64
		sd.squares[1], carry = bits.Add64(sd.squares[1], lo, 0)
		sd.squares[0] += hi + carry
		r := &by24[(id2-1)*int64(k)+id4-1]
		r.n, r.x, r.y, r.xx, r.yy, r.xy = r.n+1, r.x+a, r.y+b, r.xx+a*a, r.yy+b*b, r.xy+a*b
		v := float64(c) / 1e6
		g6 := &by6[id6-1]
		switch {
		case v > g6.top:
			g6.top, g6.second = v, g6.top
		case v > g6.second:
			g6.second = v
		}
	}
	micros := func(m int64) float64 { return float64(m) / 1e6 }
	var q3mean, q7range, q8top float64
	for _, g3 := range by3 {
		if g3.rows > 0 {
			q3mean += micros(g3.v3) / float64(g3.rows)
			q7range += float64(g3.maxV1 - g3.minV2)
		}
	}
	for _, g6 := range by6 {
		for _, v := range []float64{g6.top, g6.second} {
			if v >= 0 {
				q8top += v
			}
		}
	}
	var q4 [3]float64
	for i, s := range by4 {
		if rows4[i] > 0 {
			r := float64(rows4[i])
			q4[0], q4[1], q4[2] = q4[0]+float64(s[0])/r, q4[1]+float64(s[1])/r, q4[2]+micros(s[2])/r
		}
	}
	var q6sd float64
	for _, sd := range by45 {
		if sd.rows < 2 {
			continue // NaN, left out of the checksum
		}
		// n·Σx² − (Σx)², exactly, over n(n−1), in millionths squared.
		squares := new(big.Int).Lsh(new(big.Int).SetUint64(sd.squares[0]), 64)
		squares.Or(squares, new(big.Int).SetUint64(sd.squares[1]))
		num := new(big.Int).Mul(squares, big.NewInt(sd.rows))
		num.Sub(num, new(big.Int).Mul(big.NewInt(sd.sum), big.NewInt(sd.sum)))
		f, _ := new(big.Float).SetInt(num).Float64()
		q6sd += math.Sqrt(f/float64(sd.rows*(sd.rows-1))) / 1e6
	}
	var q9 float64
	for _, r := range by24 {
		sxx, syy := r.n*r.xx-r.x*r.x, r.n*r.yy-r.y*r.y
		if r.n == 0 || sxx == 0 || syy == 0 {
			continue // NaN
		}
		c := float64(r.n*r.xy-r.x*r.y) / math.Sqrt(float64(sxx)*float64(syy))
		q9 += c * c
	}
	fv1, fv2, fv3 := float64(v1), float64(v2), micros(v3)
	return map[string][]float64{
		"q1":  {fv1},
		"q2":  {fv1},
		"q3":  {fv1, q3mean},
		"q4":  q4[:],
		"q5":  {fv1, fv2, fv3},
		"q6":  {math.NaN(), q6sd},
		"q7":  {q7range},
		"q8":  {q8top},
		"q9":  {q9},
		"q10": {fv3, float64(n)},
	}
}

// checksumsAgree reports whether got equals want to a relative 1e-9 (sums
// of floats in another order differ in their last bits); a NaN in want
// is not checked.
func checksumsAgree(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i, w := range want {
		if !math.IsNaN(w) && math.Abs(got[i]-w) > 1e-9*max(math.Abs(w), 1) {
			return false
		}
	}
	return true
}

// check runs `dusk bench check --rows N FILE`: the groupby answers of N
// rows in FILE (JSON lines of the groupby or scale suite) against
// StreamChecksums, a line each; an error if any disagrees.
func check(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("dusk bench check", flag.ContinueOnError)
	rows := fs.String("rows", "1e7", "rows of the groupby table the answers are of")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("check wants --rows N FILE.json")
	}
	n, err := parseCount(*rows)
	if err != nil {
		return fmt.Errorf("--rows: %w", err)
	}
	results, err := ReadResults(fs.Arg(0))
	if err != nil {
		return err
	}
	want := StreamChecksums(n, 100, 1)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "question\trun\tchecksum\treference\tagree")
	var errs []error
	for _, r := range results {
		ref, ok := want[r.Question]
		if !ok || !(r.Suite == "groupby" || r.Suite == "scale" && r.Scale == int64(n)) {
			continue
		}
		agree := checksumsAgree(r.Checksum, ref)
		fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t%v\n", r.Question, r.Run, r.Checksum, ref, agree)
		if !agree {
			errs = append(errs, fmt.Errorf("%s run %d: checksum %v, the reference's %v", r.Question, r.Run, r.Checksum, ref))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

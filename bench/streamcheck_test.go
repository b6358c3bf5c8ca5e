package bench

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStreamChecksumsMatchReferences checks the one-pass checksums against
// the in-memory references' (q6's median aside), over tables whose groups
// hold one row or many.
func TestStreamChecksumsMatchReferences(t *testing.T) {
	for _, tc := range []struct{ n, k int }{{20_000, 100}, {3_000, 10}, {500, 1000}} {
		tab := NewGroupByTable(tc.n, tc.k, 1)
		got := StreamChecksums(tc.n, tc.k, 1)
		for _, q := range GroupByQuestions {
			want := q.Ref(tab).Checksum()
			if q.ID == "q6" {
				want[0] = math.NaN() // a median is not streamed
			}
			if !checksumsAgree(got[q.ID], want) {
				t.Errorf("n=%d k=%d %s: streamed %v, reference %v", tc.n, tc.k, q.ID, got[q.ID], want)
			}
		}
	}
	if checksumsAgree([]float64{1}, []float64{2}) || !checksumsAgree([]float64{7, 2}, []float64{math.NaN(), 2}) {
		t.Error("checksumsAgree is wrong")
	}
}

// TestCheckCommand runs `dusk bench check` on a results file with one
// wrong checksum: every line is printed, and the error names the wrong one.
func TestCheckCommand(t *testing.T) {
	want := StreamChecksums(2000, 100, 1)
	path := filepath.Join(t.TempDir(), "run.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, id := range []string{"q1", "q3"} {
		for run := 1; run <= 2; run++ {
			sums := slices.Clone(want[id])
			if id == "q3" && run == 2 {
				sums[1]++
			}
			if err := enc.Encode(Result{Suite: "groupby", Question: id, Run: run, Checksum: sums}); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.Close()
	var out strings.Builder
	err = check([]string{"--rows", "2000", path}, &out)
	if err == nil || !strings.Contains(err.Error(), "q3 run 2") || strings.Contains(err.Error(), "q1") {
		t.Fatalf("check: %v", err)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 5 {
		t.Errorf("%d lines, want a header and 4:\n%s", lines, out.String())
	}
}

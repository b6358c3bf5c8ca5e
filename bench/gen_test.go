package bench

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
)

// The generated table has db-benchmark's layout, the same for the same seed.
func TestGroupByLayout(t *testing.T) {
	const n, k = 10000, 100
	var a, b bytes.Buffer
	if err := WriteGroupByCSV(&a, n, k, 7); err != nil {
		t.Fatal(err)
	}
	WriteGroupByCSV(&b, n, k, 7)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same seed gave different tables")
	}
	rows, err := csv.NewReader(&a).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != GroupByHeader || len(rows) != n+1 {
		t.Fatalf("header %v and %d rows", rows[0], len(rows)-1)
	}
	intIn := func(s string, lo, hi int64) bool {
		v, err := strconv.ParseInt(s, 10, 64)
		return err == nil && v >= lo && v <= hi
	}
	for _, r := range rows[1:] {
		ok := len(r[0]) == 5 && len(r[1]) == 5 && len(r[2]) == 12 &&
			strings.HasPrefix(r[0], "id") && intIn(r[0][2:], 1, k) && intIn(r[2][2:], 1, n/k) &&
			intIn(r[3], 1, k) && intIn(r[4], 1, k) && intIn(r[5], 1, n/k) &&
			intIn(r[6], 1, 5) && intIn(r[7], 1, 15)
		v3, err := strconv.ParseFloat(r[8], 64)
		dot := strings.IndexByte(r[8], '.')
		if !ok || err != nil || v3 < 0 || v3 >= 100 || len(r[8])-dot-1 != 6 {
			t.Fatalf("row %v does not fit the layout", r)
		}
	}
}

func TestGroupByFileName(t *testing.T) {
	for _, tt := range []struct {
		n, k int
		want string
	}{{10_000_000, 100, "G1_1e7_1e2_0_0.csv"}, {1_000_000, 10, "G1_1e6_1e1_0_0.csv"}, {12345, 100, "G1_12345_1e2_0_0.csv"},
		{500_000_000, 100, "G1_5e8_1e2_0_0.csv"}, {250_000, 100, "G1_250000_1e2_0_0.csv"}, {7, 100, "G1_7_1e2_0_0.csv"}} {
		if got := GroupByFileName(tt.n, tt.k); got != tt.want {
			t.Errorf("GroupByFileName(%d, %d) = %s, want %s", tt.n, tt.k, got, tt.want)
		}
	}
}

package tpch

import (
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/pingcap/go-tpc/tpch/dbgen"
)

// setCents stores v in a generator money field, whose type is unexported.
func setCents[T ~int64](p *T, v int64) { *p = T(v) }

// TestMoneyIsWhatFmtMoneyPrints: the generator writes an amount of cents as
// float64(cents)/100, which must be the very float64 that reading back
// dbgen.FmtMoney's text gives, as another engine loading the .tbl files
// would have it.
func TestMoneyIsWhatFmtMoneyPrints(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	var o dbgen.Order
	check := func(c int64) {
		setCents(&o.TotalPrice, c)
		want, err := strconv.ParseFloat(dbgen.FmtMoney(o.TotalPrice), 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(c) / 100; got != want {
			t.Fatalf("%d cents: %v, FmtMoney reads back as %v", c, got, want)
		}
	}
	for c := int64(-100_000); c <= 1_000_000; c++ { // acctbal from -999.99, prices, discounts
		check(c)
	}
	for range 1_000_000 { // up to o_totalprice's 600,000.00 and sums of it
		check(rng.Int63n(100_000_000_000))
	}
}

// dbgen's small scales make the official generator's row counts (DuckDB's
// dbgen(sf=0.01) has the same): orders, customers, parts and suppliers in
// whole thousandths of SF1's, lineitem as the orders draw their lines.
func TestSmallScales(t *testing.T) {
	for _, c := range []struct {
		in   string
		sf   float64
		fail bool
	}{{"0.01", 0.01, false}, {"0.1", 0.1, false}, {"1", 1, false}, {"30", 30, false},
		{"0.0005", 0, true}, {"0.0125", 0, true}, {"1.5", 0, true}, {"0", 0, true}, {"-1", 0, true}, {"x", 0, true}} {
		sf, err := ParseScale(c.in)
		if (err != nil) != c.fail || !c.fail && sf != c.sf {
			t.Errorf("ParseScale(%q) = %v, %v", c.in, sf, err)
		}
	}
	dir := t.TempDir()
	if err := Generate(dir, 0.01, io.Discard); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"lineitem": 60175, "orders": 15000, "customer": 1500, "part": 2000,
		"partsupp": 8000, "supplier": 100, "nation": 25, "region": 5} {
		f, err := os.Open(filepath.Join(dir, name+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		if got := pf.NumRows(); got != want {
			t.Errorf("%s: %d rows at SF 0.01, want %d", name, got, want)
		}
		if got := tableNamed(name).Rows(0.01); name != "lineitem" && got != want {
			t.Errorf("%s: Rows(0.01) = %d, want %d", name, got, want)
		}
		f.Close()
	}
}

// TestGenerateTwiceInOneProcess generates the same scale twice in one
// process, after another scale between, and wants the same files: the
// generator keeps its state in globals, and a second initialization once
// appended its distributions to the first's, so that SF1 generated after a
// small scale (as one test process does) had other values.
func TestGenerateTwiceInOneProcess(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	if err := Generate(first, 0.01, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := Generate(t.TempDir(), 0.02, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := Generate(second, 0.01, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"part.parquet", "supplier.parquet", "customer.parquet", "orders.parquet", "lineitem.parquet"} {
		a, errA := os.ReadFile(filepath.Join(first, name))
		b, errB := os.ReadFile(filepath.Join(second, name))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", name, errA, errB)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between two generations of SF0.01 in one process", name)
		}
	}
}

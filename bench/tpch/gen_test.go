package tpch

import (
	"math/rand"
	"strconv"
	"testing"

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

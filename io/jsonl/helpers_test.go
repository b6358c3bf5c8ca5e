package jsonl_test

import (
	"math"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/internal/iotest"
)

// fiveTypes makes iotest.FiveTypes's record of n rows with strings that
// JSON must escape and floats whose shortest form it must keep.
func fiveTypes(n int) arrow.Record {
	return iotest.FiveTypes(n,
		[]string{"plain", `q"uote\back`, "tab\tnew\nline\r", "é中😀", "", "ctl\x01\x1f", "</script>&"},
		[]float64{0.1, -2.5, 3, 1e21, 1e-7, 123456.789, math.MaxFloat64 / 4, math.SmallestNonzeroFloat64, math.Copysign(0, -1)})
}

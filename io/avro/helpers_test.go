package avro_test

import (
	"math"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/internal/iotest"
)

// fiveTypes makes iotest.FiveTypes's record of n rows with strings and
// floats that Avro must carry exactly: quotes, escapes, multi-byte runes, a
// long string, infinities and subnormals.
func fiveTypes(n int) arrow.Record {
	return iotest.FiveTypes(n,
		[]string{"plain", `q"uote\back`, "tab\tnew\nline", "é中😀", "", strings.Repeat("long", 100)},
		[]float64{0.1, -2.5, 3, 1e300, math.Inf(-1), math.SmallestNonzeroFloat64})
}

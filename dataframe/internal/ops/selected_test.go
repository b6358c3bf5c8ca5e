package ops

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// TestSelectedMatchesWholeEval checks the chunked, selection-vector
// evaluation of a filter's conjunction against the whole predicate
// evaluated at once, on random columns with nulls, over row counts that
// end inside, at and past a chunk, with terms that keep almost all, a
// quarter, a few or no rows, numbers and strings.
func TestSelectedMatchesWholeEval(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	words := []string{"AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "REG AIR", "FOB"}
	terms := []x{
		col("i").Lt(95), col("i").Ge(75), col("i").Lt(3), col("i").Gt(1000),
		col("f").Between(0.2, 0.3), col("f").Gt(col("g")),
		col("s").Eq("AIR"), col("s").Eq("nothing"),
		col("i").IsNull(), col("i").Lt(50).Or(col("s").Eq("RAIL")), lit(nil), lit(true),
		col("b"), col("b").Or(lit(nil)),
	}
	for _, rows := range []int{0, 5, evalChunk - 1, evalChunk, 2*evalChunk + 17, 3 * evalChunk} {
		rec := randomRecord(rng, rows, words)
		for trial := 0; trial < 40; trial++ {
			pred := terms[rng.Intn(len(terms))]
			for k := rng.Intn(3); k >= 0; k-- {
				pred = pred.And(terms[rng.Intn(len(terms))])
			}
			t.Run(fmt.Sprintf("rows=%d/%s", rows, pred.n), func(t *testing.T) {
				got, err := selected(pred.n, rec, nil)
				if err != nil {
					t.Fatal(err)
				}
				v, err := pred.n.Eval(rec, nil)
				if err != nil {
					t.Fatal(err)
				}
				if want := v.AsMask(rows).Selected(); !slices.Equal(got, want) {
					t.Fatalf("selected differs from the whole predicate's mask")
				}
			})
		}
		rec.Release()
	}
}

// randomRecord has an int64 column i (0-99, a tenth null), floats f and g
// in [0, 1), a string column s of words (a twentieth null) and a boolean
// column b (an eighth null).
func randomRecord(rng *rand.Rand, rows int, words []string) arrow.Record {
	mem := memory.DefaultAllocator
	ib, fb, gb, sb := array.NewInt64Builder(mem), array.NewFloat64Builder(mem), array.NewFloat64Builder(mem), array.NewStringBuilder(mem)
	bb := array.NewBooleanBuilder(mem)
	for r := 0; r < rows; r++ {
		if rng.Intn(10) == 0 {
			ib.AppendNull()
		} else {
			ib.Append(rng.Int63n(100))
		}
		fb.Append(rng.Float64())
		gb.Append(rng.Float64())
		if rng.Intn(8) == 0 {
			bb.AppendNull()
		} else {
			bb.Append(rng.Intn(2) == 0)
		}
		if rng.Intn(20) == 0 {
			sb.AppendNull()
		} else {
			sb.Append(words[rng.Intn(len(words))])
		}
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "g", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	cols := []arrow.Array{ib.NewArray(), fb.NewArray(), gb.NewArray(), sb.NewArray(), bb.NewArray()}
	rec := array.NewRecord(schema, cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

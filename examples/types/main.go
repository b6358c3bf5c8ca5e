// Types writes a small orders table as Parquet (a DATE, a DECIMAL(15,2), a
// nullable float and two strings), then runs the README's example on it:
// a date range, a string pattern, a conditional, a cast of part of a
// string, and a grouping by a computed key with an aggregation of an
// expression, on a local cluster in this process.
//
// Must never import directly: scheduler, worker, or internal: an example uses
// the public API alone.
package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
)

func main() {
	ctx := context.Background()
	client, err := dusk.NewClient(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	dir := filepath.Join(os.TempDir(), "dusk-types", "orders")
	os.RemoveAll(dir)
	rec := orders(20_000)
	defer rec.Release()
	if _, err := dataframe.FromArrow(rec).Repartition(4).ToParquet(ctx, dir); err != nil {
		log.Fatal(err)
	}

	col, lit := dataframe.Col, dataframe.Lit
	orders := dataframe.ReadParquet(filepath.Join(dir, "*.parquet")) // DATE, DECIMAL(15,2) kept as they are

	out, err := orders.
		Filter(col("o_orderdate").Between(dataframe.Date("1994-01-01"), dataframe.Date("1994-12-31")).
			And(col("o_comment").Str().Like("%special%requests%").Not())).
		WithColumn("due", col("o_orderdate").Add(dataframe.Months(3))).
		WithColumn("size", dataframe.When(col("o_totalprice").Gt(100_000)).Then("large").
			When(col("o_totalprice").Gt(10_000)).Then("medium").Otherwise("small")).
		WithColumn("clerk", col("o_clerk").Str().Split("#").Get(1).Cast(dataframe.Int64)).
		GroupByExpr(col("o_orderdate").Dt().Month().Alias("month"), col("size")).
		Agg(col("o_totalprice").Sum(), col("o_totalprice").Mul(lit(1).Sub(col("discount").FillNull(0))).Sum().As("net"),
			col("clerk").Max(), col("due").Max()).
		Compute(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Release()
	fmt.Print(out)
}

// orders makes n orders of 1992 to 1998.
func orders(n int) arrow.Record {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "o_orderdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "o_totalprice", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}},
		{Name: "discount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "o_clerk", Type: arrow.BinaryTypes.String},
		{Name: "o_comment", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"special", "requests", "furiously", "quickly", "deposits", "ironic"}
	for range n {
		b.Field(0).(*array.Date32Builder).Append(arrow.Date32(8035 + r.IntN(2557))) // 1992-01-01 + up to 7 years
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r.IntN(50_000_000))))
		if r.IntN(5) == 0 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(float64(r.IntN(11)) / 100)
		}
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("Clerk#%09d", r.IntN(1000)))
		b.Field(4).(*array.StringBuilder).Append(words[r.IntN(6)] + " " + words[r.IntN(6)] + " " + words[r.IntN(6)])
	}
	return b.NewRecord()
}

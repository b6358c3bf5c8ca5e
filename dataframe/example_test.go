package dataframe_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
)

// exampleClient starts a local cluster of two workers for an example.
func exampleClient() (context.Context, func()) {
	ctx := context.Background()
	client, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		log.Fatal(err)
	}
	return dusk.WithClient(ctx, client), func() { client.Close() }
}

// ReadCSV reads a glob of files lazily, a partition per file or block;
// the column types come from a sample.
func ExampleReadCSV() {
	ctx, done := exampleClient()
	defer done()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "2014-01.csv"), []byte("day,area,clicks\n2014-01-01,north,3\n2014-01-02,south,5\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "2014-02.csv"), []byte("day,area,clicks\n2014-02-01,north,4\n"), 0o644)

	clicks := dataframe.ReadCSV(filepath.Join(dir, "2014-*.csv"))
	fmt.Println(clicks.Schema())
	n, err := clicks.Len(ctx)
	fmt.Println(n, err)
	// Output:
	// schema:
	//   fields: 3
	//     - day: type=date32, nullable
	//     - area: type=utf8, nullable
	//     - clicks: type=int64, nullable
	// 3 <nil>
}

// GroupBy with aggregations, as pandas' groupby().agg(); the result sorted.
func ExampleFrame_GroupBy() {
	ctx, done := exampleClient()
	defer done()
	type sale struct {
		Area   string
		Amount float64
	}
	sales := dataframe.FromRecords([]sale{{"north", 10}, {"south", 4}, {"north", 5}}, 2)
	out, err := sales.GroupBy("Area").
		Agg(dataframe.Sum("Amount").As("total"), dataframe.Count("Amount").As("n")).
		SortValues([]string{"Area"}).
		Compute(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Release()
	fmt.Print(out)
	// Output:
	// Area   total  n
	// north   15.0  2
	// south    4.0  1
	// [2 rows x 3 columns]
}

// Merge joins two frames on key columns, as pandas' merge.
func ExampleFrame_Merge() {
	ctx, done := exampleClient()
	defer done()
	type order struct {
		ID       int64
		Customer string
	}
	type customer struct {
		Customer string
		Country  string
	}
	orders := dataframe.FromRecords([]order{{1, "ann"}, {2, "bob"}, {3, "ann"}}, 2)
	customers := dataframe.FromRecords([]customer{{"ann", "NL"}, {"bob", "FR"}}, 1)
	out, err := orders.Merge(customers, dataframe.MergeOptions{On: []string{"Customer"}}).SortValues([]string{"ID"}).Compute(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Release()
	fmt.Print(out)
	// Output:
	// ID  Customer  Country
	//  1  ann       NL
	//  2  bob       FR
	//  3  ann       NL
	// [3 rows x 3 columns]
}

// Collect returns a frame's rows as Go structs, by field name or tag.
func ExampleCollect() {
	ctx, done := exampleClient()
	defer done()
	type point struct {
		X, Y int64
	}
	type scaled struct {
		X     int64
		Twice int64 `dusk:"y2"`
	}
	pts := dataframe.FromRecords([]point{{1, 2}, {3, 4}}, 1)
	rows, err := dataframe.Collect[scaled](ctx, pts.WithColumn("y2", dataframe.Col("Y").Mul(2)))
	fmt.Println(rows, err)
	// Output: [{1 4} {3 8}] <nil>
}

package tpch

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v15/arrow/array"

	. "github.com/duskdata/dusk/dataframe" //nolint:revive // the queries read as a dataframe user writes them
	"github.com/duskdata/dusk/internal/kernel"
)

// Query is one TPC-H query with its validation parameters, written as a
// Polars or Dask user would write it over Dusk frames.
type Query struct {
	ID      string   // "q1" … "q22"
	Columns []string // the answer's TPC-H column names, in order
	// Build returns the answer as a frame. Queries with a scalar subquery
	// (q11, q15, q22) compute it first, on the cluster ctx reaches.
	Build func(ctx context.Context, t *Tables) (*Frame, error)
}

// Queries are the 22 TPC-H queries, in order.
var Queries = []Query{
	{"q1", []string{"l_returnflag", "l_linestatus", "sum_qty", "sum_base_price", "sum_disc_price", "sum_charge", "avg_qty", "avg_price", "avg_disc", "count_order"}, q1},
	{"q2", []string{"s_acctbal", "s_name", "n_name", "p_partkey", "p_mfgr", "s_address", "s_phone", "s_comment"}, q2},
	{"q3", []string{"l_orderkey", "revenue", "o_orderdate", "o_shippriority"}, q3},
	{"q4", []string{"o_orderpriority", "order_count"}, q4},
	{"q5", []string{"n_name", "revenue"}, q5},
	{"q6", []string{"revenue"}, q6},
	{"q7", []string{"supp_nation", "cust_nation", "l_year", "revenue"}, q7},
	{"q8", []string{"o_year", "mkt_share"}, q8},
	{"q9", []string{"nation", "o_year", "sum_profit"}, q9},
	{"q10", []string{"c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone", "c_comment"}, q10},
	{"q11", []string{"ps_partkey", "value"}, q11},
	{"q12", []string{"l_shipmode", "high_line_count", "low_line_count"}, q12},
	{"q13", []string{"c_count", "custdist"}, q13},
	{"q14", []string{"promo_revenue"}, q14},
	{"q15", []string{"s_suppkey", "s_name", "s_address", "s_phone", "total_revenue"}, q15},
	{"q16", []string{"p_brand", "p_type", "p_size", "supplier_cnt"}, q16},
	{"q17", []string{"avg_yearly"}, q17},
	{"q18", []string{"c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice", "sum_quantity"}, q18},
	{"q19", []string{"revenue"}, q19},
	{"q20", []string{"s_name", "s_address"}, q20},
	{"q21", []string{"s_name", "numwait"}, q21},
	{"q22", []string{"cntrycode", "numcust", "totacctbal"}, q22},
}

// QueryNamed returns the query with that ID, or nil.
func QueryNamed(id string) *Query {
	for i := range Queries {
		if Queries[i].ID == id {
			return &Queries[i]
		}
	}
	return nil
}

// on joins by one key of each side whose names differ.
func on(left, right string) MergeOptions {
	return MergeOptions{LeftOn: []string{left}, RightOn: []string{right}}
}

// semi keeps the left rows with a match on the right (SQL's EXISTS or IN);
// anti those without (NOT EXISTS, NOT IN).
func semi(left, right string) MergeOptions {
	return MergeOptions{How: Semi, LeftOn: []string{left}, RightOn: []string{right}}
}

func anti(left, right string) MergeOptions {
	return MergeOptions{How: Anti, LeftOn: []string{left}, RightOn: []string{right}}
}

// discounted is a line's price after its discount: what TPC-H calls revenue.
func discounted() Expr { return Col("l_extendedprice").Mul(Lit(1.0).Sub(Col("l_discount"))) }

// nationsOf are the nations of a region: n_nationkey and n_name.
func nationsOf(t *Tables, region string) *Frame {
	return t.Region.Filter(Col("r_name").Eq(region)).
		Merge(t.Nation, on("r_regionkey", "n_regionkey")).
		Select("n_nationkey", "n_name")
}

// scalar computes a one-row frame and returns its column as a float64:
// a scalar subquery's value.
func scalar(ctx context.Context, f *Frame, col string) (float64, error) {
	tab, err := f.Compute(ctx)
	if err != nil {
		return 0, err
	}
	defer tab.Release()
	c := tab.Column(col)
	if tab.NumRows() != 1 || c == nil || c.IsNull(0) {
		return 0, fmt.Errorf("the subquery for %s gave %d rows, not one value", col, tab.NumRows())
	}
	v := kernel.WidenFloat(c)
	defer v.Release()
	return v.(*array.Float64).Value(0), nil
}

func q1(_ context.Context, t *Tables) (*Frame, error) {
	charge := discounted().Mul(Lit(1.0).Add(Col("l_tax")))
	return t.Lineitem.
		Filter(Col("l_shipdate").Le(Date("1998-12-01").Sub(Days(90)))).
		GroupBy("l_returnflag", "l_linestatus").
		Agg(
			Sum("l_quantity").As("sum_qty"),
			Sum("l_extendedprice").As("sum_base_price"),
			discounted().Sum().As("sum_disc_price"),
			charge.Sum().As("sum_charge"),
			Mean("l_quantity").As("avg_qty"),
			Mean("l_extendedprice").As("avg_price"),
			Mean("l_discount").As("avg_disc"),
			Size().As("count_order"),
		).
		SortValues([]string{"l_returnflag", "l_linestatus"}), nil
}

// q2 meets the few BRASS parts of size 15 with their offers first, then
// Europe's suppliers, as the SQL's joins narrow it: the other order joins
// Europe's suppliers to all their offers (1.6M rows at SF10, with the
// suppliers' strings) before the parts cut them to a few thousand.
func q2(_ context.Context, t *Tables) (*Frame, error) {
	europe := nationsOf(t, "EUROPE").Merge(t.Supplier, on("n_nationkey", "s_nationkey"))
	brass := t.Part.Filter(Col("p_size").Eq(15).And(Col("p_type").Str().EndsWith("BRASS")))
	offers := brass.
		Merge(t.Partsupp, on("p_partkey", "ps_partkey")).
		Merge(europe, on("ps_suppkey", "s_suppkey"))
	cheapest := offers.GroupBy("p_partkey").Agg(Min("ps_supplycost").As("min_cost"))
	return offers.Join(cheapest, Inner, "p_partkey").
		Filter(Col("ps_supplycost").Eq(Col("min_cost"))).
		SortValues([]string{"s_acctbal", "n_name", "s_name", "p_partkey"}, false, true, true, true).
		Limit(100).
		Select("s_acctbal", "s_name", "n_name", "p_partkey", "p_mfgr", "s_address", "s_phone", "s_comment"), nil
}

func q3(_ context.Context, t *Tables) (*Frame, error) {
	customers := t.Customer.Filter(Col("c_mktsegment").Eq("BUILDING"))
	orders := t.Orders.Filter(Col("o_orderdate").Lt(Date("1995-03-15")))
	lines := t.Lineitem.Filter(Col("l_shipdate").Gt(Date("1995-03-15")))
	return customers.
		Merge(orders, on("c_custkey", "o_custkey")).
		Merge(lines, on("o_orderkey", "l_orderkey")).
		GroupBy("l_orderkey", "o_orderdate", "o_shippriority").
		Agg(discounted().Sum().As("revenue")).
		SortValues([]string{"revenue", "o_orderdate"}, false, true).
		Limit(10).
		Select("l_orderkey", "revenue", "o_orderdate", "o_shippriority"), nil
}

func q4(_ context.Context, t *Tables) (*Frame, error) {
	late := t.Lineitem.Filter(Col("l_commitdate").Lt(Col("l_receiptdate")))
	return t.Orders.
		Filter(Col("o_orderdate").Ge(Date("1993-07-01")).And(Col("o_orderdate").Lt(Date("1993-07-01").Add(Months(3))))).
		Merge(late, semi("o_orderkey", "l_orderkey")).
		GroupBy("o_orderpriority").
		Agg(Size().As("order_count")).
		SortValues([]string{"o_orderpriority"}), nil
}

// q5 starts from the region, as the SQL's joins narrow it: Asia's
// customers' orders of the year are few, so they go to every partition of
// lineitem as one partition (Dask broadcasts a side of one partition)
// rather than lineitem being shuffled to meet them.
func q5(_ context.Context, t *Tables) (*Frame, error) {
	orders := t.Orders.Filter(Col("o_orderdate").Ge(Date("1994-01-01")).And(Col("o_orderdate").Lt(Date("1995-01-01"))))
	asia := nationsOf(t, "ASIA").
		Merge(t.Customer, on("n_nationkey", "c_nationkey")).
		Merge(orders, on("c_custkey", "o_custkey")).
		Repartition(1)
	return t.Lineitem.
		Merge(asia, on("l_orderkey", "o_orderkey")).
		// The customer and the supplier are of the same nation.
		Merge(t.Supplier, MergeOptions{LeftOn: []string{"l_suppkey", "n_nationkey"}, RightOn: []string{"s_suppkey", "s_nationkey"}}).
		GroupBy("n_name").
		Agg(discounted().Sum().As("revenue")).
		SortValues([]string{"revenue"}, false), nil
}

func q6(_ context.Context, t *Tables) (*Frame, error) {
	return t.Lineitem.
		Filter(Col("l_shipdate").Ge(Date("1994-01-01")).
			And(Col("l_shipdate").Lt(Date("1995-01-01"))).
			And(Col("l_discount").Between(0.05, 0.07)).
			And(Col("l_quantity").Lt(24))).
		Agg(Col("l_extendedprice").Mul(Col("l_discount")).Sum().As("revenue")), nil
}

func q7(_ context.Context, t *Tables) (*Frame, error) {
	pair := t.Nation.Filter(Col("n_name").IsIn("FRANCE", "GERMANY")).Select("n_nationkey", "n_name")
	suppliers := t.Supplier.Merge(pair.Rename(map[string]string{"n_name": "supp_nation"}), on("s_nationkey", "n_nationkey"))
	customers := t.Customer.Merge(pair.Rename(map[string]string{"n_name": "cust_nation"}), on("c_nationkey", "n_nationkey"))
	return t.Lineitem.
		Filter(Col("l_shipdate").Between(Date("1995-01-01"), Date("1996-12-31"))).
		Merge(suppliers, on("l_suppkey", "s_suppkey")).
		Merge(t.Orders, on("l_orderkey", "o_orderkey")).
		Merge(customers, on("o_custkey", "c_custkey")).
		Filter(Col("supp_nation").Ne(Col("cust_nation"))).
		GroupByExpr(Col("supp_nation"), Col("cust_nation"), Col("l_shipdate").Dt().Year().Alias("l_year")).
		Agg(discounted().Sum().As("revenue")).
		SortValues([]string{"supp_nation", "cust_nation", "l_year"}), nil
}

func q8(_ context.Context, t *Tables) (*Frame, error) {
	customers := t.Customer.Merge(nationsOf(t, "AMERICA"), on("c_nationkey", "n_nationkey")).Select("c_custkey")
	orders := t.Orders.
		Filter(Col("o_orderdate").Between(Date("1995-01-01"), Date("1996-12-31"))).
		Merge(customers, on("o_custkey", "c_custkey"))
	parts := t.Part.Filter(Col("p_type").Eq("ECONOMY ANODIZED STEEL"))
	suppliers := t.Supplier.Merge(t.Nation, on("s_nationkey", "n_nationkey")).Select("s_suppkey", "n_name")
	volume := discounted()
	return t.Lineitem.
		Merge(parts, on("l_partkey", "p_partkey")).
		Merge(orders, on("l_orderkey", "o_orderkey")).
		Merge(suppliers, on("l_suppkey", "s_suppkey")).
		GroupByExpr(Col("o_orderdate").Dt().Year().Alias("o_year")).
		Agg(
			When(Col("n_name").Eq("BRAZIL")).Then(volume).Otherwise(0.0).Sum().As("brazil"),
			volume.Sum().As("volume"),
		).
		WithColumn("mkt_share", Col("brazil").Div(Col("volume"))).
		SortValues([]string{"o_year"}).
		Select("o_year", "mkt_share"), nil
}

// q9 meets the green parts' offers with their suppliers' nations first,
// a twentieth of the part suppliers, and the green parts' lines with
// those, rather than the lines with every part supplier.
func q9(_ context.Context, t *Tables) (*Frame, error) {
	green := t.Part.Filter(Col("p_name").Str().Contains("green")).Select("p_partkey")
	profit := discounted().Sub(Col("ps_supplycost").Mul(Col("l_quantity")))
	offers := t.Partsupp.
		Merge(green, semi("ps_partkey", "p_partkey")).
		Merge(t.Supplier.Select("s_suppkey", "s_nationkey"), on("ps_suppkey", "s_suppkey")).
		Merge(t.Nation.Select("n_nationkey", "n_name"), on("s_nationkey", "n_nationkey"))
	return t.Lineitem.
		Merge(green, semi("l_partkey", "p_partkey")).
		Merge(offers, MergeOptions{LeftOn: []string{"l_suppkey", "l_partkey"}, RightOn: []string{"ps_suppkey", "ps_partkey"}}).
		Merge(t.Orders, on("l_orderkey", "o_orderkey")).
		GroupByExpr(Col("n_name").Alias("nation"), Col("o_orderdate").Dt().Year().Alias("o_year")).
		Agg(profit.Sum().As("sum_profit")).
		SortValues([]string{"nation", "o_year"}, true, false), nil
}

func q10(_ context.Context, t *Tables) (*Frame, error) {
	orders := t.Orders.Filter(Col("o_orderdate").Ge(Date("1993-10-01")).And(Col("o_orderdate").Lt(Date("1994-01-01"))))
	revenue := t.Lineitem.
		Filter(Col("l_returnflag").Eq("R")).
		Merge(orders, on("l_orderkey", "o_orderkey")).
		GroupBy("o_custkey").
		Agg(discounted().Sum().As("revenue"))
	return t.Customer.
		Merge(revenue, on("c_custkey", "o_custkey")).
		Merge(t.Nation, on("c_nationkey", "n_nationkey")).
		SortValues([]string{"revenue", "c_custkey"}, false, true).
		Limit(20).
		Select("c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone", "c_comment"), nil
}

func q11(ctx context.Context, t *Tables) (*Frame, error) {
	germany := t.Supplier.Merge(t.Nation.Filter(Col("n_name").Eq("GERMANY")), on("s_nationkey", "n_nationkey"))
	stock := t.Partsupp.
		Merge(germany, on("ps_suppkey", "s_suppkey")).
		WithColumn("value", Col("ps_supplycost").Mul(Col("ps_availqty")))
	total, err := scalar(ctx, stock.Agg(Sum("value").As("total")), "total")
	if err != nil {
		return nil, err
	}
	return stock.
		GroupBy("ps_partkey").
		Agg(Sum("value").As("value")).
		Filter(Col("value").Gt(total*0.0001)).
		SortValues([]string{"value"}, false), nil
}

func q12(_ context.Context, t *Tables) (*Frame, error) {
	high := Col("o_orderpriority").IsIn("1-URGENT", "2-HIGH")
	return t.Lineitem.
		Filter(Col("l_shipmode").IsIn("MAIL", "SHIP").
			And(Col("l_commitdate").Lt(Col("l_receiptdate"))).
			And(Col("l_shipdate").Lt(Col("l_commitdate"))).
			And(Col("l_receiptdate").Ge(Date("1994-01-01"))).
			And(Col("l_receiptdate").Lt(Date("1995-01-01")))).
		Merge(t.Orders, on("l_orderkey", "o_orderkey")).
		GroupBy("l_shipmode").
		Agg(
			When(high).Then(1).Otherwise(0).Sum().As("high_line_count"),
			When(high).Then(0).Otherwise(1).Sum().As("low_line_count"),
		).
		SortValues([]string{"l_shipmode"}), nil
}

func q13(_ context.Context, t *Tables) (*Frame, error) {
	orders := t.Orders.Filter(Col("o_comment").Str().Like("%special%requests%").Not())
	return t.Customer.
		Merge(orders, MergeOptions{How: Left, LeftOn: []string{"c_custkey"}, RightOn: []string{"o_custkey"}}).
		GroupBy("c_custkey").
		Agg(Count("o_orderkey").As("c_count")).
		GroupBy("c_count").
		Agg(Size().As("custdist")).
		SortValues([]string{"custdist", "c_count"}, false), nil
}

func q14(_ context.Context, t *Tables) (*Frame, error) {
	return t.Lineitem.
		Filter(Col("l_shipdate").Ge(Date("1995-09-01")).And(Col("l_shipdate").Lt(Date("1995-09-01").Add(Months(1))))).
		Merge(t.Part, on("l_partkey", "p_partkey")).
		Agg(
			When(Col("p_type").Str().StartsWith("PROMO")).Then(discounted()).Otherwise(0.0).Sum().As("promo"),
			discounted().Sum().As("revenue"),
		).
		WithColumn("promo_revenue", Lit(100.0).Mul(Col("promo")).Div(Col("revenue"))).
		Select("promo_revenue"), nil
}

// q15 computes each supplier's revenue once and keeps it in this process,
// so that the maximum is compared with the very sums it was taken from.
func q15(ctx context.Context, t *Tables) (*Frame, error) {
	revenue, err := t.Lineitem.
		Filter(Col("l_shipdate").Ge(Date("1996-01-01")).And(Col("l_shipdate").Lt(Date("1996-01-01").Add(Months(3))))).
		GroupBy("l_suppkey").
		Agg(discounted().Sum().As("total_revenue")).
		Compute(ctx)
	if err != nil {
		return nil, err
	}
	rev := FromArrow(revenue.Record())
	top, err := scalar(ctx, rev.Agg(Max("total_revenue").As("top")), "top")
	if err != nil {
		return nil, err
	}
	return t.Supplier.
		Merge(rev.Filter(Col("total_revenue").Eq(top)), on("s_suppkey", "l_suppkey")).
		SortValues([]string{"s_suppkey"}).
		Select("s_suppkey", "s_name", "s_address", "s_phone", "total_revenue"), nil
}

func q16(_ context.Context, t *Tables) (*Frame, error) {
	complaints := t.Supplier.Filter(Col("s_comment").Str().Like("%Customer%Complaints%"))
	parts := t.Part.Filter(Col("p_brand").Ne("Brand#45").
		And(Col("p_type").Str().StartsWith("MEDIUM POLISHED").Not()).
		And(Col("p_size").IsIn(49, 14, 23, 45, 19, 3, 36, 9)))
	return t.Partsupp.
		Merge(complaints, anti("ps_suppkey", "s_suppkey")).
		Merge(parts, on("ps_partkey", "p_partkey")).
		GroupBy("p_brand", "p_type", "p_size").
		Agg(Nunique("ps_suppkey").As("supplier_cnt")).
		SortValues([]string{"supplier_cnt", "p_brand", "p_type", "p_size"}, false, true, true, true), nil
}

func q17(_ context.Context, t *Tables) (*Frame, error) {
	parts := t.Part.Filter(Col("p_brand").Eq("Brand#23").And(Col("p_container").Eq("MED BOX")))
	lines := t.Lineitem.Merge(parts, semi("l_partkey", "p_partkey"))
	usual := lines.GroupBy("l_partkey").Agg(Mean("l_quantity").As("avg_quantity"))
	return lines.
		Join(usual, Inner, "l_partkey").
		Filter(Col("l_quantity").Lt(Col("avg_quantity").Mul(0.2))).
		Agg(Sum("l_extendedprice").As("total")).
		WithColumn("avg_yearly", Col("total").Div(7.0)).
		Select("avg_yearly"), nil
}

func q18(_ context.Context, t *Tables) (*Frame, error) {
	large := t.Lineitem.
		GroupBy("l_orderkey").
		Agg(Sum("l_quantity").As("sum_quantity")).
		Filter(Col("sum_quantity").Gt(300))
	return large.
		Merge(t.Orders, on("l_orderkey", "o_orderkey")).
		Merge(t.Customer, on("o_custkey", "c_custkey")).
		SortValues([]string{"o_totalprice", "o_orderdate"}, false, true).
		Limit(100).
		Select("c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice", "sum_quantity"), nil
}

func q19(_ context.Context, t *Tables) (*Frame, error) {
	kind := func(brand string, containers []any, quantity, size int) Expr {
		return Col("p_brand").Eq(brand).
			And(Col("p_container").IsIn(containers...)).
			And(Col("l_quantity").Between(quantity, quantity+10)).
			And(Col("p_size").Between(1, size))
	}
	return t.Lineitem.
		Filter(Col("l_shipmode").IsIn("AIR", "AIR REG").And(Col("l_shipinstruct").Eq("DELIVER IN PERSON"))).
		Merge(t.Part, on("l_partkey", "p_partkey")).
		Filter(kind("Brand#12", []any{"SM CASE", "SM BOX", "SM PACK", "SM PKG"}, 1, 5).
			Or(kind("Brand#23", []any{"MED BAG", "MED BOX", "MED PKG", "MED PACK"}, 10, 10)).
			Or(kind("Brand#34", []any{"LG CASE", "LG BOX", "LG PACK", "LG PKG"}, 20, 15))).
		Agg(discounted().Sum().As("revenue")), nil
}

func q20(_ context.Context, t *Tables) (*Frame, error) {
	forest := t.Part.Filter(Col("p_name").Str().StartsWith("forest"))
	shipped := t.Lineitem.
		Filter(Col("l_shipdate").Ge(Date("1994-01-01")).And(Col("l_shipdate").Lt(Date("1995-01-01")))).
		Merge(forest, semi("l_partkey", "p_partkey")).
		GroupBy("l_partkey", "l_suppkey").
		Agg(Sum("l_quantity").As("shipped"))
	excess := t.Partsupp.
		Merge(forest, semi("ps_partkey", "p_partkey")).
		Merge(shipped, MergeOptions{LeftOn: []string{"ps_partkey", "ps_suppkey"}, RightOn: []string{"l_partkey", "l_suppkey"}}).
		Filter(Col("ps_availqty").Gt(Col("shipped").Mul(0.5)))
	return t.Supplier.
		Merge(t.Nation.Filter(Col("n_name").Eq("CANADA")), on("s_nationkey", "n_nationkey")).
		Merge(excess, semi("s_suppkey", "ps_suppkey")).
		SortValues([]string{"s_name"}).
		Select("s_name", "s_address"), nil
}

// q21's EXISTS and NOT EXISTS ask whether an order has lines of another
// supplier: whether its suppliers' smallest and largest keys differ. They
// look only at the orders of the waiting lines (l1): grouped, those are one
// partition, which joins broadcast.
func q21(_ context.Context, t *Tables) (*Frame, error) {
	late := Col("l_receiptdate").Gt(Col("l_commitdate"))
	saudi := t.Supplier.Merge(t.Nation.Filter(Col("n_name").Eq("SAUDI ARABIA")), on("s_nationkey", "n_nationkey"))
	waiting := t.Lineitem.
		Filter(late).
		Merge(saudi, on("l_suppkey", "s_suppkey")).
		Merge(t.Orders.Filter(Col("o_orderstatus").Eq("F")), semi("l_orderkey", "o_orderkey"))
	orders := waiting.GroupBy("l_orderkey").Agg(Size().As("waiting"))
	lines := t.Lineitem.Merge(orders, semi("l_orderkey", "l_orderkey"))
	suppliers := func(lines *Frame) *Frame {
		return lines.GroupBy("l_orderkey").Agg(Min("l_suppkey").As("first"), Max("l_suppkey").As("last"))
	}
	shared := suppliers(lines).Filter(Col("first").Ne(Col("last")))
	lateAlone := suppliers(lines.Filter(late)).Filter(Col("first").Eq(Col("last")))
	return waiting.
		Merge(shared, semi("l_orderkey", "l_orderkey")).
		Merge(lateAlone, semi("l_orderkey", "l_orderkey")).
		GroupBy("s_name").
		Agg(Size().As("numwait")).
		SortValues([]string{"numwait", "s_name"}, false, true).
		Limit(100), nil
}

func q22(ctx context.Context, t *Tables) (*Frame, error) {
	customers := t.Customer.
		WithColumn("cntrycode", Col("c_phone").Str().Slice(0, 2)).
		Filter(Col("cntrycode").IsIn("13", "31", "23", "29", "30", "18", "17"))
	average, err := scalar(ctx, customers.Filter(Col("c_acctbal").Gt(0.0)).Agg(Mean("c_acctbal").As("average")), "average")
	if err != nil {
		return nil, err
	}
	return customers.
		Filter(Col("c_acctbal").Gt(average)).
		Merge(t.Orders, anti("c_custkey", "o_custkey")).
		GroupBy("cntrycode").
		Agg(Size().As("numcust"), Sum("c_acctbal").As("totacctbal")).
		SortValues([]string{"cntrycode"}), nil
}

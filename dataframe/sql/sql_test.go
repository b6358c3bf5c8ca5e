package sql_test

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/duskdata/dusk/collections/testcluster"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/dataframe/sql"
)

type sale struct {
	ID     int64   `dusk:"id"`
	Region string  `dusk:"region"`
	Amount float64 `dusk:"amount"`
	Qty    int64   `dusk:"qty"`
	Cust   int64   `dusk:"cust"`
}

type customer struct {
	Cust int64  `dusk:"cust"`
	Name string `dusk:"name"`
}

// fixture is random sales over four regions and twenty customers, of
// which fifteen are known, in three partitions.
func fixture(seed int64) ([]sale, []customer) {
	rng := rand.New(rand.NewSource(seed))
	regions := []string{"north", "south", "east", "west"}
	sales := make([]sale, 500)
	for i := range sales {
		sales[i] = sale{ID: int64(i), Region: regions[rng.Intn(4)], Amount: float64(rng.Intn(10000)) / 100,
			Qty: int64(rng.Intn(20)), Cust: int64(rng.Intn(20))}
	}
	var custs []customer
	for c := range int64(15) {
		custs = append(custs, customer{Cust: c, Name: fmt.Sprintf("c%02d", c)})
	}
	return sales, custs
}

// rowsOf prints a table's rows, one string each, in order.
func rowsOf(t *testing.T, tab *dataframe.Table) []string {
	t.Helper()
	var out []string
	for r := range tab.Rows() {
		var cells []string
		for _, c := range tab.Schema().Fields() {
			v, err := r.Value(c.Name)
			if err != nil {
				t.Fatal(err)
			}
			if f, ok := v.(float64); ok {
				v = fmt.Sprintf("%.4f", f)
			}
			cells = append(cells, fmt.Sprint(v))
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

// TestQueriesMatchReference runs queries over random data and compares
// each answer with one computed by plain Go loops over the same rows.
func TestQueriesMatchReference(t *testing.T) {
	ctx := testcluster.Local(t)
	sales, custs := fixture(1)
	sc := sql.NewContext(map[string]*dataframe.Frame{
		"sales": dataframe.FromRecords(sales, 3), "customers": dataframe.FromRecords(custs, 1),
	})
	names := map[int64]string{}
	for _, c := range custs {
		names[c.Cust] = c.Name
	}
	type agg struct {
		sum   float64
		n     int64
		maxQ  int64
		custs map[int64]bool
	}
	byRegion := map[string]*agg{}
	for _, s := range sales {
		a := byRegion[s.Region]
		if a == nil {
			a = &agg{custs: map[int64]bool{}}
			byRegion[s.Region] = a
		}
		a.sum += s.Amount
		a.n++
		a.maxQ = max(a.maxQ, s.Qty)
		a.custs[s.Cust] = true
	}
	regions := make([]string, 0, len(byRegion))
	for r := range byRegion {
		regions = append(regions, r)
	}
	sort.Strings(regions)

	cases := []struct {
		name, query string
		args        []any
		want        func() []string
		ordered     bool
	}{
		{"filter and project", "select id, amount * 2 as twice from sales where qty > $1 and region = 'north' order by id", []any{int64(15)},
			func() []string {
				var out []string
				for _, s := range sales {
					if s.Qty > 15 && s.Region == "north" {
						out = append(out, fmt.Sprintf("%d|%.4f", s.ID, s.Amount*2))
					}
				}
				return out
			}, true},
		{"group by with having and order by an aggregate", "select region, sum(amount) as total, count(*) as n, max(qty), count(distinct cust) as custs from sales group by region having count(*) > 10 order by 1",
			nil, func() []string {
				var out []string
				for _, r := range regions {
					a := byRegion[r]
					if a.n > 10 {
						out = append(out, fmt.Sprintf("%s|%.4f|%d|%d|%d", r, a.sum, a.n, a.maxQ, len(a.custs)))
					}
				}
				return out
			}, true},
		{"inner join with USING", "select s.id, c.name from sales s join customers c using (cust) where s.amount < 10 order by s.id",
			nil, func() []string {
				var out []string
				for _, s := range sales {
					if n, ok := names[s.Cust]; ok && s.Amount < 10 {
						out = append(out, fmt.Sprintf("%d|%s", s.ID, n))
					}
				}
				return out
			}, true},
		{"not exists", "select c.name from customers c where not exists (select * from sales s where s.cust = c.cust and s.qty = 19) order by name",
			nil, func() []string {
				var out []string
				for _, c := range custs {
					found := false
					for _, s := range sales {
						found = found || s.Cust == c.Cust && s.Qty == 19
					}
					if !found {
						out = append(out, c.Name)
					}
				}
				return out
			}, true},
		{"scalar subquery", "select id from sales where amount > (select avg(amount) * 1.9 from sales)",
			nil, func() []string {
				var sum float64
				for _, s := range sales {
					sum += s.Amount
				}
				var out []string
				for _, s := range sales {
					if s.Amount > sum/float64(len(sales))*1.9 {
						out = append(out, fmt.Sprint(s.ID))
					}
				}
				return out
			}, false},
		{"union, intersect and except", "select cust from sales where qty > 17 union select cust from customers where cust < 3 order by 1",
			nil, func() []string {
				set := map[int64]bool{}
				for _, s := range sales {
					if s.Qty > 17 {
						set[s.Cust] = true
					}
				}
				for _, c := range custs {
					if c.Cust < 3 {
						set[c.Cust] = true
					}
				}
				var keys []int64
				for k := range set {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				var out []string
				for _, k := range keys {
					out = append(out, fmt.Sprint(k))
				}
				return out
			}, true},
		{"except", "select cust from customers except select cust from sales where qty = 19",
			nil, func() []string {
				var out []string
				for _, c := range custs {
					found := false
					for _, s := range sales {
						found = found || s.Cust == c.Cust && s.Qty == 19
					}
					if !found {
						out = append(out, fmt.Sprint(c.Cust))
					}
				}
				return out
			}, false},
		{"case, in and between", "select id, case when region in ('north', 'south') then 'ns' else 'ew' end as side from sales where qty between 3 and 4 and id < 100",
			nil, func() []string {
				var out []string
				for _, s := range sales {
					if s.Qty >= 3 && s.Qty <= 4 && s.ID < 100 {
						side := "ew"
						if s.Region == "north" || s.Region == "south" {
							side = "ns"
						}
						out = append(out, fmt.Sprintf("%d|%s", s.ID, side))
					}
				}
				return out
			}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := sc.Query(c.query, c.args...)
			tab, err := f.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tab.Release()
			got, want := rowsOf(t, tab), c.want()
			if !c.ordered {
				slices.Sort(got)
				slices.Sort(want)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %d rows %q\nwant %d rows %q", len(got), head(got), len(want), head(want))
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 8)] }

type item struct {
	K *int64 `dusk:"k"`
	V *int64 `dusk:"v"`
}

type other struct {
	K *int64 `dusk:"k"`
}

func ptr(v int64) *int64 { return &v }

// TestSQLNulls checks the places where SQL's meaning of null differs from
// the dataframe API's (pandas'): null keys join nothing and group
// together, sum of no values is null, NOT IN over a null keeps nothing;
// and the clauses that order, page and pair rows. The answers are worked
// out by hand from the rows.
func TestSQLNulls(t *testing.T) {
	ctx := testcluster.Local(t)
	items := []item{{ptr(1), ptr(10)}, {ptr(1), nil}, {nil, ptr(5)}, {ptr(2), nil}, {nil, nil}, {ptr(3), ptr(7)}}
	others := []other{{ptr(1)}, {nil}, {ptr(4)}}
	sc := sql.NewContext(map[string]*dataframe.Frame{
		"items": dataframe.FromRecords(items, 2), "others": dataframe.FromRecords(others, 2),
	})
	for _, c := range []struct {
		query   string
		want    []string
		ordered bool
	}{
		{"select k, sum(v) as s, count(*) as n from items group by k order by k nulls first",
			[]string{"<nil>|5|2", "1|10|2", "2|<nil>|1", "3|7|1"}, true},
		{"select sum(v) as s, count(v) as n from items where k > 5", []string{"<nil>|0"}, true},
		{"select i.k from items i join others o on i.k = o.k", []string{"1", "1"}, false},
		{"select i.k, o.k from items i left join others o on i.k = o.k where i.k is null", []string{"<nil>|<nil>", "<nil>|<nil>"}, false},
		{"select count(*) as n from items i full join others o on i.k = o.k", []string{"8"}, true},
		{"select count(*) as n from items i full join others o on i.k = o.k and o.k > 1", []string{"9"}, true},
		{"select v from items where k not in (select k from others)", nil, false},
		{"select v from items where k not in (select k from others where k is not null)", []string{"<nil>", "7"}, false},
		{"select v from items where k in (select k from others)", []string{"10", "<nil>"}, false},
		{"select k from items order by k desc nulls first limit 2 offset 1", []string{"<nil>", "3"}, true},
		{"select k from items order by k limit all offset 4", []string{"<nil>", "<nil>"}, true},
		{"select count(*) as n from items cross join others", []string{"18"}, true},
		{"select count(*) as n from items, others where items.v > 6", []string{"6"}, true},
		{"select cast(v * 1.5 as integer) as r, cast(-v * 1.5 as bigint) as m from items where k = 3", []string{"11|-11"}, true},
		{"select k from items where exists (select 1 from others where k = 4) and k = 2", []string{"2"}, true},
		{"select k from items where not exists (select 1 from others where k > 9) and k = 2", []string{"2"}, true},
		{"select k, count(*), count(*) from items where k = 3 group by k", []string{"3|1|1"}, true},
		{"select i.k, sum(distinct v), sum(v), count(distinct v) from items i, others o where o.k is not null group by i.k order by 1",
			[]string{"1|10|20|1", "2|<nil>|<nil>|0", "3|7|14|1", "<nil>|5|10|1"}, true},
		{"select sum(distinct v) as s, avg(distinct v) as a from items, others", []string{"22|7.3333"}, true},
		{"select k from items where k in (1, null)", []string{"1", "1"}, false},
		{"select k from items where k not in (1, null)", nil, false},
	} {
		t.Run(c.query, func(t *testing.T) {
			tab, err := sc.Query(c.query).Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tab.Release()
			got := rowsOf(t, tab)
			if !c.ordered {
				slices.Sort(got)
				slices.Sort(c.want)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestErrorsSayWhere checks that a query's errors name what is wrong and
// point at it: line, column and a caret under the text.
func TestErrorsSayWhere(t *testing.T) {
	sales, custs := fixture(2)
	sc := sql.NewContext(map[string]*dataframe.Frame{
		"sales": dataframe.FromRecords(sales, 1), "customers": dataframe.FromRecords(custs, 1),
	})
	for _, c := range []struct {
		query      string
		line, col  int
		msg, close string
	}{
		{"select amout from sales", 1, 8, `no column "amout"`, "amount"},
		{"select id from sale", 1, 16, `no table "sale"`, "sales"},
		{"select id,\n  region\nfrom sales\nwhere qty >", 4, 12, "syntax error", ""},
		{"select region, qty from sales group by region", 1, 16, `"qty" must appear in GROUP BY`, ""},
		{"select id from sales where sum(qty) > 1", 1, 28, "aggregate (sum) is not allowed here", ""},
		{"select lenght(region) from sales", 1, 8, "no function lenght", "length"},
		{"select sum(distinct qty) filter (where qty > 1) from sales", 1, 8, "FILTER on an aggregate is not supported yet", ""},
	} {
		err := sc.Query(c.query).Err()
		var se *sql.Error
		if !asError(err, &se) {
			t.Errorf("%q: error %v, want a *sql.Error", c.query, err)
			continue
		}
		if se.Line != c.line || se.Column != c.col || !strings.Contains(se.Msg, c.msg) || !strings.Contains(se.Msg, c.close) {
			t.Errorf("%q: got line %d column %d %q; want line %d column %d saying %q (and %q)", c.query, se.Line, se.Column, se.Msg, c.line, c.col, c.msg, c.close)
		}
		if !strings.Contains(err.Error(), "^") {
			t.Errorf("%q: %v has no caret", c.query, err)
		}
	}
}

func asError(err error, target **sql.Error) bool {
	for ; err != nil; err = unwrap(err) {
		if e, ok := err.(*sql.Error); ok {
			*target = e
			return true
		}
	}
	return false
}

func unwrap(err error) error {
	u, ok := err.(interface{ Unwrap() error })
	if !ok {
		return nil
	}
	return u.Unwrap()
}

// TestExec makes a view, a table persisted from a query and a copy to
// Parquet files, and reads each back through queries.
func TestExec(t *testing.T) {
	ctx := testcluster.Local(t)
	sales, custs := fixture(3)
	sc := sql.NewContext(map[string]*dataframe.Frame{
		"sales": dataframe.FromRecords(sales, 3), "customers": dataframe.FromRecords(custs, 1),
	})
	var want int64
	for _, s := range sales {
		if s.Qty > 10 {
			want++
		}
	}
	count := func(query string) int64 {
		t.Helper()
		tab, err := sc.Query(query).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tab.Release()
		v, err := firstRow(tab).Value("n")
		if err != nil {
			t.Fatal(err)
		}
		return v.(int64)
	}
	if err := sc.Exec(ctx, "create view big as select * from sales where qty > 10"); err != nil {
		t.Fatal(err)
	}
	if got := count("select count(*) as n from big"); got != want {
		t.Errorf("view: %d rows, want %d", got, want)
	}
	if err := sc.Exec(ctx, "create table kept as select id, qty from big"); err != nil {
		t.Fatal(err)
	}
	if got := count("select count(*) as n from kept"); got != want {
		t.Errorf("table: %d rows, want %d", got, want)
	}
	dir := t.TempDir() + "/out"
	if err := sc.Exec(ctx, "copy (select id from kept) to '"+dir+"' (format parquet)"); err != nil {
		t.Fatal(err)
	}
	if got := count("select count(*) as n from read_parquet('" + dir + "/*.parquet')"); got != want {
		t.Errorf("copy: %d rows read back, want %d", got, want)
	}
	if err := sc.Exec(ctx, "create or replace view sales as select * from sales"); err == nil {
		if err := sc.Query("select * from sales").Err(); err == nil || !strings.Contains(err.Error(), "reads itself") {
			t.Errorf("a view reading itself: %v", err)
		}
	}
	if err := sc.Exec(ctx, "select 1"); err == nil {
		t.Error("Exec took a query")
	}
}

func firstRow(tab *dataframe.Table) dataframe.Row {
	for r := range tab.Rows() {
		return r
	}
	panic("no rows")
}

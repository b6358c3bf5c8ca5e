package bench_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/dataframe"
)

// The sizes and partition counts the db-benchmark questions are checked at.
var (
	questionRows  = []int{100_000, 1_000_000}
	questionParts = []int{1, 7, 32}
)

func testClient(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	c, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return dusk.WithClient(ctx, c)
}

// persisted loads records into the cluster's memory, as db-benchmark times
// questions on data already loaded.
func persisted(t *testing.T, ctx context.Context, recs []arrow.Record) *dataframe.Frame {
	t.Helper()
	f := dataframe.FromArrow(recs...)
	for _, r := range recs {
		r.Release()
	}
	p, err := f.Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Release)
	return p
}

// answerOf computes f and reads it as an Answer; with nan, nulls in float
// columns read as NaN, as pandas shows an undefined statistic.
func answerOf(t *testing.T, ctx context.Context, f *dataframe.Frame, nan bool) bench.Answer {
	t.Helper()
	tb, err := f.Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	a, err := bench.AnswerFromRecords([]arrow.Record{tb.Record()})
	if err != nil {
		t.Fatal(err)
	}
	for c, fl := range tb.Schema().Fields() {
		if nan && fl.Type.ID() == arrow.FLOAT64 {
			for _, row := range a.Rows {
				if row[c] == nil {
					row[c] = math.NaN()
				}
			}
		}
	}
	a.Sort()
	return a
}

func TestGroupByQuestions(t *testing.T) {
	ctx := testClient(t)
	for _, n := range questionRows {
		table := bench.NewGroupByTable(n, 100, 1)
		want := map[string]bench.Answer{}
		for _, q := range bench.GroupByQuestions {
			want[q.ID] = q.Ref(table)
		}
		for _, parts := range questionParts {
			x := persisted(t, ctx, table.Records(parts))
			for _, q := range bench.GroupByQuestions {
				t.Run(fmt.Sprintf("%s/rows=%d/parts=%d", q.ID, n, parts), func(t *testing.T) {
					f, err := bench.GroupByQuery(q.ID, x)
					if err != nil {
						t.Fatal(err)
					}
					if err := answerOf(t, ctx, f, true).Equal(want[q.ID], 1e-9); err != nil {
						t.Fatalf("%s (%s): %v", q.ID, q.Text, err)
					}
				})
			}
			x.Release()
		}
	}
}

func TestJoinQuestions(t *testing.T) {
	ctx := testClient(t)
	for _, n := range questionRows {
		tables := bench.GenJoin(n, 1)
		want := map[string]bench.Answer{}
		for _, q := range bench.JoinQuestions {
			want[q.ID] = q.Ref(tables)
		}
		for _, parts := range questionParts {
			x := persisted(t, ctx, tables.X.Records(parts))
			small := persisted(t, ctx, tables.Small.Records(1))
			medium := persisted(t, ctx, tables.Medium.Records(max(1, parts/4)))
			big := persisted(t, ctx, tables.Big.Records(parts))
			for _, q := range bench.JoinQuestions {
				t.Run(fmt.Sprintf("%s/rows=%d/parts=%d", q.ID, n, parts), func(t *testing.T) {
					f, err := bench.JoinQuery(q.ID, x, small, medium, big)
					if err != nil {
						t.Fatal(err)
					}
					if err := answerOf(t, ctx, f, false).Equal(want[q.ID], 1e-9); err != nil {
						t.Fatalf("%s (%s): %v", q.ID, q.Text, err)
					}
				})
			}
		}
	}
}

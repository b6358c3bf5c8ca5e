package tpch_test

import (
	"path/filepath"
	"testing"

	"github.com/duskdata/dusk/bench/tpch"
)

// TestSQLAnswersSF1 runs TPC-H's own texts through the SQL front end on
// the official SF1 data and checks every answer against TPC-H's.
func TestSQLAnswersSF1(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	dir := sf1(t)
	ctx := testClient(t)
	tables, err := tpch.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc := tables.SQL()
	for _, q := range tpch.Queries {
		t.Run(q.ID, func(t *testing.T) {
			text, err := tpch.SQLText(q.ID)
			if err != nil {
				t.Fatal(err)
			}
			f := sc.Query(text)
			if err := f.Err(); err != nil {
				t.Fatal(err)
			}
			tab, err := f.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tab.Release()
			got, err := tpch.AnswerRows(&q, tab)
			if err != nil {
				t.Fatal(err)
			}
			_, want, err := tpch.ReadAnswer(filepath.Join("testdata", "sf1-answers", tpch.AnswerFile(q.ID)))
			if err != nil {
				t.Fatal(err)
			}
			if err := tpch.CompareAnswer(&q, got, want); err != nil {
				t.Error(err)
			}
		})
	}
}

// BenchmarkSQLPlan times parsing and binding each of TPC-H's texts over
// the SF1 tables (the plan's nodes made; nothing runs), and with
// /optimized, optimizing the plan as well (and printing it: Explain).
func BenchmarkSQLPlan(b *testing.B) {
	tables, err := tpch.Open(sf1(&testing.T{}))
	if err != nil {
		b.Fatal(err)
	}
	sc := tables.SQL()
	for _, q := range tpch.Queries {
		text, err := tpch.SQLText(q.ID)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(q.ID, func(b *testing.B) {
			for b.Loop() {
				if err := sc.Query(text).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.ID+"/optimized", func(b *testing.B) {
			for b.Loop() {
				if f := sc.Query(text); f.Explain() == "" {
					b.Fatal(f.Err())
				}
			}
		})
	}
}

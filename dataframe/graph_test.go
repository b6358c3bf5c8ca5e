package dataframe_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/graph"
)

// TestGraphRoundTrip checks that a frame rebuilt from its own graph is the
// same frame, and that steps on top of it run.
func TestGraphRoundTrip(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(21, 60)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			g, keys, err := tf.frame.Graph()
			if err != nil {
				t.Fatal(err)
			}
			f := dataframe.FromGraph(g, keys, tf.frame.Schema())
			if f.NumPartitions() != tf.frame.NumPartitions() {
				t.Fatalf("%d partitions, want %d", f.NumPartitions(), tf.frame.NumPartitions())
			}
			var want [][]any
			for _, r := range rows {
				want = append(want, r.values())
			}
			checkTable(t, f, compute(t, ctx, f), testColumns, testTypes, want, 0)
			kept := f.Filter(dataframe.Col("I").Gt(0))
			checkTable(t, kept, compute(t, ctx, kept), testColumns, testTypes,
				keep(rows, func(r testRow) tri { return cmp3(r.I, ptr(int64(0)), ">") }), 0)
		})
	}
}

func TestFromGraphErrors(t *testing.T) {
	errBoom := errors.New("boom")
	s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	wantErr(t, "no keys", dataframe.FromGraph(graph.New(), nil, s).Err(), "no partitions")
	bad := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.BinaryTypes.Binary}}, nil)
	wantErr(t, "a binary column", dataframe.FromGraph(graph.New(), []graph.Key{"k-0"}, bad).Err(), "column b", "binary")
	wantErr(t, "no columns", dataframe.FromGraph(graph.New(), []graph.Key{"k-0"}, nil).Err(), "no columns")
	wantErr(t, "Failed", dataframe.Failed(errBoom).Err(), "boom")
	if _, _, err := dataframe.Failed(errBoom).Graph(); !errors.Is(err, errBoom) {
		t.Fatalf("Graph of a failed frame: %v", err)
	}
}

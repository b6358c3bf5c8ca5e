package ops

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// A record's task carries its IPC bytes raw after the JSON of what is
// pushed into it: the record comes back whole, with a column chosen and a
// filter applied; arguments without the bytes, or with them cut short,
// are an error naming the op, not a panic.
func TestFromIPCTask(t *testing.T) {
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil), []arrow.Array{
		kernel.NewInt64([]int64{1, 2, 3, 4}, nil),
		kernel.NewString([]int32{0, 1, 3, 3, 7}, []byte("a\x00bcdef"), nil), // a NUL inside the data
	}, 4)
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	data := buf.Bytes()

	got, err := fromIPCOp(nil, SourceTask(OpFromIPC, data, nil, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !array.RecordEqual(got.(arrow.Record), rec) {
		t.Errorf("got %v, want %v", got, rec)
	}
	got.(arrow.Record).Release()

	pred := &expr.Node{Op: ">", Args: []*expr.Node{{Op: "col", Name: "k"}, {Op: "lit", Lit: &expr.Literal{Kind: "int64", I: 2}}}}
	got, err = fromIPCOp(nil, SourceTask(OpFromIPC, data, []string{"s"}, pred), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := got.(arrow.Record)
	if out.NumCols() != 1 || out.NumRows() != 2 || out.Column(0).(*array.String).Value(1) != "cdef" {
		t.Errorf("column s where k > 2: got %v", out)
	}
	out.Release()

	for name, raw := range map[string][]byte{
		"no record": []byte(`{"src":null}`),
		"cut short": SourceTask(OpFromIPC, data[:len(data)/2], nil, nil),
	} {
		if _, err := fromIPCOp(nil, raw, nil); err == nil || !strings.Contains(err.Error(), OpFromIPC) {
			t.Errorf("%s: error %v, want one naming %s", name, err, OpFromIPC)
		}
	}
}

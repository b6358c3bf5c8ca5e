package jsonl_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/internal/iotest"
	"github.com/duskdata/dusk/io/jsonl"
)

func TestWriteParseRoundTrip(t *testing.T) {
	full := fiveTypes(100)
	defer full.Release()
	sliced := full.NewSlice(13, 77) // non-zero offsets in every column
	defer sliced.Release()
	schema := jsonl.Schema{
		{Name: "i", Type: jsonl.Int64}, {Name: "f", Type: jsonl.Float64}, {Name: "b", Type: jsonl.Bool},
		{Name: "s", Type: jsonl.String}, {Name: "d", Type: jsonl.String, Dictionary: true},
	}
	for _, tt := range []struct {
		name string
		rec  arrow.Record
	}{{"whole", full}, {"sliced", sliced}, {"empty", full.NewSlice(5, 5)}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.jsonl")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := jsonl.Write(f, tt.rec); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Count(data, []byte{'\n'}); got != int(tt.rec.NumRows()) {
				t.Fatalf("%d lines for %d rows", got, tt.rec.NumRows())
			}
			back, err := jsonl.Parse(data, schema, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer back.Release()
			if got, want := iotest.RowsOf(back), iotest.RowsOf(tt.rec); !reflect.DeepEqual(got, want) {
				t.Errorf("rows differ after a round trip:\n got %v\nwant %v", got, want)
			}
			if tt.rec.NumRows() == 0 {
				return
			}
			// Infer finds the types back, floats included.
			inferred, err := jsonl.Infer(data)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range inferred {
				if c.Name != schema[i].Name || c.Type != schema[i].Type {
					t.Errorf("Infer column %d = %+v, want %+v", i, c, schema[i])
				}
			}
		})
	}
}

func TestWriteText(t *testing.T) {
	fields := []arrow.Field{
		{Name: "f", Type: kernel.Float64, Nullable: true}, {Name: `k"ey`, Type: kernel.String, Nullable: true},
	}
	floats := []float64{3, math.NaN(), math.Inf(1), math.Inf(-1), 1e21, 1e-7, 0.1, math.Copysign(0, -1), 1e20}
	n := len(floats)
	offs := make([]int32, n+1)
	data := []byte("a\xffb\x01")
	offs[1] = int32(len(data))
	for i := 2; i <= n; i++ {
		offs[i] = offs[1]
	}
	cols := []arrow.Array{kernel.NewFloat64(floats, nil), kernel.NewString(offs, data, iotest.Validity(append([]bool{false}, make([]bool, n-1)...)))}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))
	defer rec.Release()
	var b bytes.Buffer
	if err := jsonl.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`{"f":3.0,"k\"ey":"a\ufffdb\u0001"}`,
		`{"f":null,"k\"ey":""}`,
		`{"f":null,"k\"ey":""}`,
		`{"f":null,"k\"ey":""}`,
		`{"f":1e+21,"k\"ey":""}`,
		`{"f":1e-7,"k\"ey":""}`,
		`{"f":0.1,"k\"ey":""}`,
		`{"f":-0.0,"k\"ey":""}`,
		`{"f":100000000000000000000.0,"k\"ey":""}`,
	}, "\n") + "\n"
	if b.String() != want {
		t.Errorf("Write wrote\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteNoColumns(t *testing.T) {
	rec := array.NewRecord(arrow.NewSchema(nil, nil), nil, 2)
	defer rec.Release()
	var b bytes.Buffer
	if err := jsonl.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	if b.String() != "{}\n{}\n" {
		t.Errorf("Write wrote %q", b.String())
	}
}

func TestWriteUnsupportedType(t *testing.T) {
	bld := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	bld.Append([]byte{1})
	col := bld.NewArray()
	defer col.Release()
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.BinaryTypes.Binary}}, nil), []arrow.Array{col}, 1)
	defer rec.Release()
	err := jsonl.Write(&bytes.Buffer{}, rec)
	if want := "jsonl: column x: cannot write type binary: no text form for binary"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

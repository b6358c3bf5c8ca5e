package bag

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

const (
	opFromFrame = "bag-from-frame"
	opToFrame   = "bag-to-frame"
)

func init() {
	registry.Register(opFromFrame, fromFrameOp)
	registry.Register(opToFrame, toFrameOp)
	registerCodec[[]map[string]any]()
}

// FromDataFrame makes a bag of f's rows, one partition per partition of f,
// without running anything: each row is a map from column name to an int64,
// float64, string or bool, or nil where the value is null. Like every
// []map[string]any partition, rows that cross processes go as JSON, so
// their int64s come back as float64. A persisted frame must stay reachable
// and unreleased while the bag is used.
func FromDataFrame(f *dataframe.Frame) *Bag[map[string]any] {
	fg, keys, err := f.Graph()
	if err != nil {
		return failed[map[string]any](fmt.Errorf("bag.FromDataFrame: %w", err))
	}
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = string(k)
	}
	name := graph.Name("bag-from-frame", opFromFrame, nil, ks...)
	g := graph.New()
	g.Merge(fg)
	out := make([]graph.Key, len(keys))
	for i, k := range keys {
		out[i] = graph.Part(name, i)
		g.Add(&graph.Task{Key: out[i], Op: opFromFrame, Inputs: []graph.Key{k}})
	}
	return &Bag[map[string]any]{g: g, keys: out, name: name}
}

func fromFrameOp(tc *registry.Context, _ []byte, inputs []any) (any, error) {
	rec, ok := inputs[0].(arrow.Record)
	if !ok {
		return nil, fmt.Errorf("%s: partition %s: input is a %T, not a dataframe partition", opFromFrame, tc.Part(), inputs[0])
	}
	n := int(rec.NumRows())
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = make(map[string]any, rec.NumCols())
	}
	for c, col := range rec.Columns() {
		name := rec.ColumnName(c)
		var at func(i int) any
		switch a := col.(type) {
		case *array.Int64:
			at = func(i int) any { return a.Value(i) }
		case *array.Float64:
			at = func(i int) any { return a.Value(i) }
		case *array.Boolean:
			at = func(i int) any { return a.Value(i) }
		case *array.String, *array.Dictionary:
			if !kernel.IsString(col.DataType()) {
				return nil, fmt.Errorf("%s: partition %s: column %s has type %s", opFromFrame, tc.Part(), name, col.DataType())
			}
			s := kernel.StringsOf(col)
			at = func(i int) any { return strings.Clone(s.Value(i)) } // not the record's memory
		default:
			return nil, fmt.Errorf("%s: partition %s: column %s has type %s", opFromFrame, tc.Part(), name, col.DataType())
		}
		for i, row := range rows {
			if col.IsNull(i) {
				row[name] = nil
			} else {
				row[name] = at(i)
			}
		}
	}
	return rows, nil
}

// column is a column of ToDataFrame's schema, as its tasks carry it.
type column struct {
	Name string `json:"name"`
	Type string `json:"type"` // int64, float64, bool or string
}

// ToDataFrame makes a frame of the bag's maps, one partition per partition
// of the bag (one empty partition for a bag without any), without running
// anything. schema names the columns, each int64, float64, bool or string;
// a map's value under a column's name becomes that column's value, nil or a
// missing key a null, and other keys are dropped. An int64 column takes any
// Go integer, and a float64 without a fraction (JSON's numbers); a float64
// column any number. A value of another type fails its partition with the
// item and column.
func ToDataFrame(b *Bag[map[string]any], schema *arrow.Schema) *dataframe.Frame {
	if b.err != nil {
		return dataframe.Failed(fmt.Errorf("bag.ToDataFrame: %w", b.err))
	}
	if schema == nil || schema.NumFields() == 0 {
		return dataframe.Failed(fmt.Errorf("bag.ToDataFrame: the schema has no columns"))
	}
	cols := make([]column, schema.NumFields())
	fields := make([]arrow.Field, len(cols))
	for i, fl := range schema.Fields() {
		switch fl.Type.ID() {
		case arrow.INT64, arrow.FLOAT64, arrow.BOOL, arrow.STRING:
		default:
			return dataframe.Failed(fmt.Errorf("bag.ToDataFrame: column %s has type %s: int64, float64, bool or string are allowed", fl.Name, fl.Type))
		}
		cols[i] = column{Name: fl.Name, Type: fl.Type.Name()}
		fields[i] = arrow.Field{Name: fl.Name, Type: fl.Type, Nullable: true}
	}
	if len(b.keys) == 0 {
		b = FromPartitions([][]map[string]any{{}})
	}
	args := mustJSON(cols)
	name := graph.Name("bag-to-frame", opToFrame, args, b.name)
	g := graph.New()
	g.Merge(b.g)
	keys := make([]graph.Key, len(b.keys))
	for i, in := range b.keys {
		keys[i] = graph.Part(name, i)
		g.Add(&graph.Task{Key: keys[i], Op: opToFrame, Args: args, Inputs: []graph.Key{in}})
	}
	return dataframe.FromGraph(g, keys, arrow.NewSchema(fields, nil))
}

func toFrameOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var cols []column
	if err := json.Unmarshal(raw, &cols); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opToFrame, err)
	}
	rows, err := part[map[string]any](inputs[0])
	if err != nil {
		return nil, fmt.Errorf("%s: partition %s: %w", opToFrame, tc.Part(), err)
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		var t arrow.DataType
		switch c.Type {
		case "int64":
			t = kernel.Int64
		case "float64":
			t = kernel.Float64
		case "bool":
			t = kernel.Bool
		case "utf8":
			t = kernel.String
		default:
			return nil, fmt.Errorf("%s: column %s has type %s", opToFrame, c.Name, c.Type)
		}
		fields[i] = arrow.Field{Name: c.Name, Type: t, Nullable: true}
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer rb.Release()
	for j, row := range rows {
		for i, c := range cols {
			v := row[c.Name]
			if v == nil {
				rb.Field(i).AppendNull()
				continue
			}
			ok := true
			switch fb := rb.Field(i).(type) {
			case *array.Int64Builder:
				var x int64
				if x, ok = asInt64(v); ok {
					fb.Append(x)
				}
			case *array.Float64Builder:
				var x float64
				if x, ok = asFloat64(v); ok {
					fb.Append(x)
				}
			case *array.BooleanBuilder:
				var x bool
				if x, ok = v.(bool); ok {
					fb.Append(x)
				}
			case *array.StringBuilder:
				var x string
				if x, ok = v.(string); ok {
					fb.Append(x)
				}
			}
			if !ok {
				return nil, fmt.Errorf("%s: partition %s item %d: column %s is %s, and %v (a %T) is not one",
					opToFrame, tc.Part(), j, c.Name, fields[i].Type, v, v)
			}
		}
	}
	return rb.NewRecord(), nil
}

// asInt64 is v as an int64: a Go integer in range, or a float without a
// fraction (what JSON decodes numbers to).
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		return int64(x), x <= math.MaxInt64
	case uint64:
		return int64(x), x <= math.MaxInt64
	case float64:
		return int64(x), x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63
	case float32:
		return asInt64(float64(x))
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

// asFloat64 is v, any Go number, as a float64.
func asFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	if n, ok := asInt64(v); ok {
		return float64(n), true
	}
	if x, ok := v.(uint64); ok {
		return float64(x), true
	}
	if x, ok := v.(uint); ok {
		return float64(x), true
	}
	return 0, false
}

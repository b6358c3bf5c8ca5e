package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/io/files"
)

// SourceArgs wrap a source's own arguments with what the optimizer pushed
// into it (SourceTask encodes them).
type SourceArgs struct {
	Src  json.RawMessage `json:"src"` // null for a record, whose bytes follow
	Cols []string        `json:"cols,omitempty"`
	Pred *expr.Node      `json:"pred,omitempty"`
}

// readWith reads a source's partition with read, given the columns to
// read (nil: all), then applies what was pushed into the source. Where
// the reader tests filters as it decodes (tests), it is given the
// predicate's tests of one column each (columnTests) and the extra tests,
// which may keep rows they fail (a join's filter, whose join drops them).
func readWith(name string, raw []byte, tests bool, extra []ColumnTest, read func(src []byte, cols []string, where []ColumnTest) (arrow.Record, error)) (arrow.Record, error) {
	var a SourceArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", name, err)
	}
	cols, pred := a.Cols, a.Pred
	var where []ColumnTest
	if tests && cols != nil && pred != nil {
		where, pred = columnTests(pred)
	}
	if tests {
		where = append(where, extra...)
	}
	if cols != nil && pred != nil {
		cols = slices.Clone(cols)
		for c := range pred.Columns(SetOf{}) {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	rec, err := read(a.Src, cols, where)
	if err != nil {
		return nil, err
	}
	if pred != nil {
		var keep []string // the columns read for the filter alone are not carried past it
		if a.Cols != nil && int(rec.NumCols()) != len(a.Cols) {
			keep = a.Cols
		}
		kept, err := filterOp(nil, &FilterArgs{Expr: pred, Keep: keep}, rec)
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rec = kept
	}
	if a.Cols != nil && int(rec.NumCols()) != len(a.Cols) {
		out, err := selectOp(&SelectArgs{Columns: a.Cols}, rec)
		rec.Release()
		return out, err
	}
	return rec, nil
}

func fromIPCOp(_ *registry.Context, raw []byte, _ []any) (any, error) {
	i := bytes.IndexByte(raw, 0)
	if i < 0 {
		return nil, fmt.Errorf("%s: arguments without a record", OpFromIPC)
	}
	data := raw[i+1:]
	return readWith(OpFromIPC, raw[:i], false, nil, func([]byte, []string, []ColumnTest) (arrow.Record, error) {
		r, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", OpFromIPC, err)
		}
		defer r.Release()
		if !r.Next() {
			return nil, fmt.Errorf("%s: no record: %v", OpFromIPC, r.Err())
		}
		rec := r.Record()
		rec.Retain()
		return rec, nil
	})
}

// SourceTask encodes the arguments of a task reading a source's partition
// (src, as the source made it) with cols and pred pushed into it, as JSON;
// a record's IPC bytes (OpFromIPC) follow the JSON after a NUL byte, raw:
// as a JSON string they were scanned three times as base64 and decoded
// once (TPC-H q15's revenue table of 100K rows, 0.06 s of CPU a run).
func SourceTask(op string, src []byte, cols []string, pred *expr.Node) []byte {
	if op == OpFromIPC {
		return append(append(MustJSON(SourceArgs{Cols: cols, Pred: pred}), 0), src...)
	}
	return MustJSON(SourceArgs{Src: src, Cols: cols, Pred: pred})
}

// FileArgs are the arguments of a file source's read task.
type FileArgs struct {
	Slices []files.Slice   `json:"slices"`
	Schema []ColSpec       `json:"schema"` // the source's columns, hive ones last
	Hive   []HiveColumn    `json:"hive,omitempty"`
	Values []expr.Literal  `json:"values,omitempty"` // this partition's hive values
	Opts   json.RawMessage `json:"opts,omitempty"`
}

// ReadFiles reads a file source's partition: each slice with read (given
// the files' columns to read; nil: all, as no projection was pushed down), conformed to the source's columns
// (nulls for those a file lacks, the hive columns' values), concatenated.
func ReadFiles(name string, raw []byte, f files.Format, extra []ColumnTest) (arrow.Record, error) {
	return readWith(name, raw, f.Filters(), extra, func(src []byte, cols []string, where []ColumnTest) (arrow.Record, error) {
		var a FileArgs
		if err := json.Unmarshal(src, &a); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", name, err)
		}
		full := SchemaOf(a.Schema)
		schema := full
		if cols != nil { // the source's own order
			var kept []arrow.Field
			for _, f := range schema.Fields() {
				if slices.Contains(cols, f.Name) {
					kept = append(kept, f)
				}
			}
			schema = arrow.NewSchema(kept, nil)
		}
		hive := map[string]expr.Literal{}
		for i, h := range a.Hive {
			hive[h.Name] = a.Values[i]
		}
		var fileCols []string // nil: every column of the files
		if cols != nil {
			fileCols = []string{}
			for _, f := range schema.Fields() {
				if _, ok := hive[f.Name]; !ok {
					fileCols = append(fileCols, f.Name)
				}
			}
		}
		recs := make([]arrow.Record, 0, len(a.Slices))
		defer func() {
			for _, r := range recs {
				r.Release()
			}
		}()
		for _, s := range a.Slices {
			var rec arrow.Record
			var err error
			var filters []files.Filter
			if where != nil {
				if filters, err = sliceFilters(s, where, full, hive); err == nil && filters == nil {
					continue // no row of the slice passes
				}
			}
			if err == nil {
				rec, err = f.Read(s, fileCols, filters, a.Opts)
			}
			if err != nil {
				return nil, err
			}
			conformed, err := conform(rec, schema, hive)
			rec.Release()
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", s.Path, err)
			}
			recs = append(recs, conformed)
		}
		if len(recs) == 1 {
			recs[0].Retain()
			return recs[0], nil
		}
		return kernel.ConcatRecordsDict(schema, recs)
	})
}

// sliceFilters are the reader's filters of a slice for the tests, on the
// columns that full types: a test of a column the file lacks (null
// there) or of a hive column is decided here, once for the slice. Nil: no
// row passes; an empty list: every row does.
func sliceFilters(s files.Slice, tests []ColumnTest, full *arrow.Schema, hive map[string]expr.Literal) ([]files.Filter, error) {
	filters := []files.Filter{}
	for _, t := range tests {
		want := full.Field(full.FieldIndices(t.Col)[0]).Type
		l, isHive := hive[t.Col]
		if !isHive && len(s.Own([]string{t.Col})) == 1 {
			f := files.Filter{Column: t.Col, Pass: func(v arrow.Array) ([]uint8, error) { return t.passes(v, want) }}
			if t.pred != nil {
				f.Stats = func(st files.ColumnStats) bool {
					return expr.MayMatch(t.pred, func(string) (expr.Range, bool) { return StatsRange(want, st), true })
				}
			}
			if t.Sift != nil {
				f.Sift = func(v arrow.Array, keep []uint8) error { return t.sifts(v, want, keep) }
			}
			filters = append(filters, f)
			continue
		}
		if !isHive {
			l = expr.Literal{Kind: "null"}
		}
		c := constColumn(want, l, 1)
		pass, err := t.passes(c, c.DataType())
		c.Release()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", s.Path, err)
		}
		if pass[0] == 0 {
			return nil, nil
		}
	}
	return filters, nil
}

// conform returns rec with schema's columns: its own, nulls for those it
// lacks, and the constant values of hive columns.
func conform(rec arrow.Record, schema *arrow.Schema, hive map[string]expr.Literal) (arrow.Record, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, schema.NumFields())
	fields := make([]arrow.Field, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range schema.Fields() {
		fields[i] = f
		if l, ok := hive[f.Name]; ok {
			cols[i] = constColumn(f.Type, l, n)
			fields[i].Type = cols[i].DataType()
			continue
		}
		j := rec.Schema().FieldIndices(f.Name)
		if len(j) == 0 {
			cols[i] = constColumn(f.Type, expr.Literal{Kind: "null"}, n)
			fields[i].Type = cols[i].DataType()
			continue
		}
		c := rec.Column(j[0])
		if !kernel.SameType(c.DataType(), f.Type) {
			return nil, fmt.Errorf("column %s is %s, not %s as in the other files", f.Name, kernel.TypeName(c.DataType()), kernel.TypeName(f.Type))
		}
		c.Retain()
		cols[i] = c
		fields[i].Type = c.DataType()
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n)), nil
}

// constColumn is n rows of one value (null for a null literal) of type t.
func constColumn(t arrow.DataType, l expr.Literal, n int) arrow.Array {
	var valid []byte
	if l.Kind == "null" {
		valid = make([]byte, (n+7)/8)
	}
	switch kernel.PlainType(t).ID() {
	case arrow.INT64:
		vals := make([]int64, n)
		if l.Kind == "int64" {
			for i := range vals {
				vals[i] = l.I
			}
		}
		return kernel.NewInt64(vals, valid)
	case arrow.FLOAT64:
		vals := make([]float64, n)
		if v, ok := l.Value().(float64); ok {
			for i := range vals {
				vals[i] = v
			}
		}
		return kernel.NewFloat64(vals, valid)
	case arrow.BOOL:
		vals := make([]uint8, n)
		if l.Kind == "bool" && l.B {
			for i := range vals {
				vals[i] = 1
			}
		}
		return kernel.NewBool(vals, valid)
	}
	dict := kernel.NewString([]int32{0, int32(len(l.S))}, []byte(l.S), nil)
	defer dict.Release()
	return kernel.NewDict(make([]int32, n), dict, valid)
}

// HiveColumn is a column that hive-style directories (year=2024/) give.
type HiveColumn struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // int64 or string
}

// HiveNull is the directory value that stands for null, as Hive and Spark
// write it.
const HiveNull = "__HIVE_DEFAULT_PARTITION__"

// escapeHive and unescapeHive keep a value's '/', '=' and '%' out of a
// directory name, as Hive does.
func escapeHive(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '/' || c == '=' || c == '%' || c == '\\' || c == '?' || c == '*' || c < 0x20 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// StatsRange turns a row group's column statistics into a range.
func StatsRange(t arrow.DataType, st files.ColumnStats) expr.Range {
	r := expr.Range{Nulls: st.Nulls > 0, Paged: st.Paged}
	if !st.HasMinMax {
		r.Nulls = true // unknown
		return r
	}
	switch kernel.PlainType(t).ID() {
	case arrow.INT64, arrow.INT32, arrow.INT16, arrow.INT8, arrow.UINT32, arrow.UINT16, arrow.UINT8:
		r.Min, r.Max = st.MinInt, st.MaxInt
	case arrow.FLOAT64, arrow.FLOAT32:
		r.Min, r.Max = st.MinFloat, st.MaxFloat
	case arrow.STRING:
		r.Min, r.Max = st.MinString, st.MaxString
	case arrow.BOOL:
		r.Min, r.Max = st.MinBool, st.MaxBool
	}
	return r
}

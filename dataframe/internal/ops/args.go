package ops

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// MustJSON encodes an operation's arguments, which are plain data.
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("dataframe: encode arguments: %v", err))
	}
	return b
}

// ColSpec is a column of a logical schema, as operations' arguments carry it.
type ColSpec struct {
	Name string `json:"name"`
	Type string `json:"type"` // as arrow.DataType's String writes it; strings plain
}

func SpecOf(s *arrow.Schema) []ColSpec {
	out := make([]ColSpec, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = ColSpec{Name: f.Name, Type: kernel.PlainType(f.Type).String()}
	}
	return out
}

func SchemaOf(spec []ColSpec) *arrow.Schema {
	fields := make([]arrow.Field, len(spec))
	for i, c := range spec {
		fields[i] = arrow.Field{Name: c.Name, Type: TypeNamed(c.Type), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// TypeNamed is the type a colSpec names (specOf wrote it, so it parses).
func TypeNamed(name string) arrow.DataType {
	t, err := kernel.ParseType(name)
	if err != nil {
		panic(fmt.Sprintf("dataframe: %v", err))
	}
	return t
}

// SetOf is a set of column names.
type SetOf map[string]bool

func (s SetOf) Add(cols ...string) SetOf {
	for _, c := range cols {
		s[c] = true
	}
	return s
}

// In lists the columns of schema that are in s, in schema's order.
func (s SetOf) In(schema *arrow.Schema) []string {
	var out []string
	for _, f := range schema.Fields() {
		if s[f.Name] {
			out = append(out, f.Name)
		}
	}
	return out
}

func RecordIn(op string, v any) (arrow.Record, error) {
	rec, ok := v.(arrow.Record)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, not a dataframe partition", op, v)
	}
	return rec, nil
}

// ConcatArgs carry the output's columns, for when there are no pieces.
type ConcatArgs struct {
	Out []ColSpec `json:"out"`
}

// Accelerator returns the GPU kernels of a task that holds a GPU, or nil
// where the task does not or this process has no GPU: the caller then runs
// its CPU path.
func Accelerator(tc *registry.Context) gpu.Kernels { return gpu.ForTask(tc != nil && tc.GPU) }

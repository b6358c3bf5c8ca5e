package bag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/io/storage"
)

// Names of the type-independent operations.
const (
	opMap      = "bag-map"
	opFilter   = "bag-filter"
	opFlatMap  = "bag-flatmap"
	opPluck    = "bag-pluck"
	opReadText = "bag-read-text"
)

func init() {
	registry.Register(opMap, funcOp(opMap, func(e *entry) func(any) (any, error) { return e.mapPart }))
	registry.Register(opFilter, funcOp(opFilter, func(e *entry) func(any) (any, error) { return e.filterPart }))
	registry.Register(opFlatMap, funcOp(opFlatMap, func(e *entry) func(any) (any, error) { return e.flatPart }))
	registry.Register(opPluck, pluckOp)
	registry.Register(opReadText, readTextOp)
	registerCodec[[]string]()
	registerCodec[[]any]()
	registry.Hint("bag-", "it is an operation of bags of one element type (its name says which): "+
		"call bag.RegisterType[T]() for that type (and RegisterComparable, RegisterOrdered or "+
		"RegisterNumber for the operations that need them) in an init function of a package "+
		"that the worker's main imports")
}

type funcArgs struct {
	Func string `json:"func"`
}

// funcOp runs a registered function's partition step, which pick chooses.
func funcOp(op string, pick func(*entry) func(any) (any, error)) registry.Op {
	return func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
		var a funcArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", op, err)
		}
		e, err := lookup(a.Func)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		run := pick(e)
		if run == nil {
			return nil, fmt.Errorf("%s: function %q has the wrong kind of result for it", op, a.Func)
		}
		out, err := run(inputs[0])
		if err != nil {
			return nil, fmt.Errorf("%s %q on partition %s: %w", op, a.Func, tc.Part(), err)
		}
		return out, nil
	}
}

// Map applies f to every item.
func Map[In, Out any](b *Bag[In], f Func[In, Out]) *Bag[Out] {
	return mapped[Out](b, "bag-map-"+f.name, opMap, mustJSON(funcArgs{Func: f.name}), funcNeed(f.name))
}

// Filter keeps the items for which f is true.
func Filter[T any](b *Bag[T], f Func[T, bool]) *Bag[T] {
	return mapped[T](b, "bag-filter-"+f.name, opFilter, mustJSON(funcArgs{Func: f.name}), funcNeed(f.name))
}

// FlatMap applies f to every item and concatenates the slices it returns.
func FlatMap[In, Out any](b *Bag[In], f Func[In, []Out]) *Bag[Out] {
	return mapped[Out](b, "bag-flatmap-"+f.name, opFlatMap, mustJSON(funcArgs{Func: f.name}), funcNeed(f.name))
}

type pluckArgs struct {
	Field string `json:"field"`
}

// Pluck takes field from every item: a map's value under that key, or a
// struct's field of that name or JSON name. An item without the field is
// an error that names the partition and the item, as Dask's KeyError.
func Pluck[T any](b *Bag[T], field string) *Bag[any] {
	return mapped[any](b, "bag-pluck", opPluck, mustJSON(pluckArgs{Field: field}))
}

func pluckOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a pluckArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opPluck, err)
	}
	if ms, ok := inputs[0].([]map[string]any); ok { // the common case, without reflection
		out := make([]any, len(ms))
		for i, m := range ms {
			v, ok := m[a.Field]
			if !ok {
				return nil, fmt.Errorf("%s: partition %s item %d has no field %q", opPluck, tc.Part(), i, a.Field)
			}
			out[i] = v
		}
		return out, nil
	}
	in := reflect.ValueOf(inputs[0])
	if in.Kind() != reflect.Slice {
		return nil, fmt.Errorf("%s: partition %s is a %T, not a slice", opPluck, tc.Part(), inputs[0])
	}
	out := make([]any, in.Len())
	for i := range out {
		v, ok := fieldOf(in.Index(i), a.Field)
		if !ok {
			return nil, fmt.Errorf("%s: partition %s item %d (%s) has no field %q", opPluck, tc.Part(), i, in.Index(i).Type(), a.Field)
		}
		out[i] = v
	}
	return out, nil
}

// fieldOf is v's field or map value named name.
func fieldOf(v reflect.Value, name string) (any, bool) {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, false
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		x := v.MapIndex(reflect.ValueOf(name).Convert(v.Type().Key()))
		if !x.IsValid() {
			return nil, false
		}
		return x.Interface(), true
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.IsExported() && (f.Name == name || tag == name) {
				return v.Field(i).Interface(), true
			}
		}
	}
	return nil, false
}

// FromSequence makes a bag of items cut into npartitions partitions of
// nearly equal size (at least one partition; some are empty when there are
// fewer items than partitions). The items travel inside the tasks.
func FromSequence[T any](items []T, npartitions int) *Bag[T] {
	npartitions = max(npartitions, 1)
	parts := make([][]T, npartitions)
	for i := range parts {
		parts[i] = items[i*len(items)/npartitions : (i+1)*len(items)/npartitions]
	}
	return FromPartitions(parts)
}

// FromPartitions makes a bag with the given partitions, as they are.
func FromPartitions[T any](parts [][]T) *Bag[T] {
	op := sequenceOp[T]()
	registerCodec[[]T]()
	args := make([][]byte, len(parts))
	var all []string
	for i, p := range parts {
		enc, err := encodeArg(p)
		if err != nil {
			return failed[T](fmt.Errorf("bag.FromSequence: encode partition %d: %w", i, err))
		}
		args[i] = enc
		all = append(all, graph.Name("", op, enc))
	}
	name := graph.Name("bag-from-sequence", op, nil, all...)
	g := graph.New()
	keys := make([]graph.Key, len(parts))
	for i := range parts {
		keys[i] = graph.Part(name, i)
		g.Add(&graph.Task{Key: keys[i], Op: op, Args: args[i]})
	}
	return &Bag[T]{g: g, keys: keys, name: name}
}

func sequenceOp[T any]() string {
	return ensureOp("bag-from-sequence:"+typeName[T](), func() registry.Op {
		return func(_ *registry.Context, raw []byte, _ []any) (any, error) {
			p, err := decodeArg[[]T](raw)
			if err != nil {
				return nil, fmt.Errorf("bag-from-sequence: %w", err)
			}
			if p == nil {
				p = []T{}
			}
			return p, nil
		}
	})
}

// BlockSize is how many bytes of a file ReadText and ReadJSON put in one
// partition, at most (a compressed file is one partition): large enough to
// make the per-task cost small, small enough to keep every core busy.
var BlockSize int64 = 32 << 20

// readSource lists a pattern's files as line blocks, one per partition.
func readSource[T any](what, pattern, op string) *Bag[T] {
	files, err := storage.List(pattern)
	if err != nil {
		return failed[T](fmt.Errorf("bag.%s: %w", what, err))
	}
	registerCodec[[]T]()
	blocks := storage.Blocks(files, BlockSize)
	args := make([][]byte, len(blocks))
	names := make([]string, len(blocks))
	for i, b := range blocks {
		args[i] = mustJSON(b)
		names[i] = string(args[i])
	}
	name := graph.Name("bag-"+strings.ToLower(what), op, nil, names...)
	g := graph.New()
	keys := make([]graph.Key, len(blocks))
	for i := range blocks {
		keys[i] = graph.Part(name, i)
		g.Add(&graph.Task{Key: keys[i], Op: op, Args: args[i]})
	}
	return &Bag[T]{g: g, keys: keys, name: name}
}

// ReadText makes a bag of the lines of the files pattern names (a path, a
// directory or a glob; see storage.Datums), in file order, without their
// line endings (Dask keeps the "\n"). Large files are read in blocks of
// BlockSize, one partition each.
func ReadText(pattern string) *Bag[string] {
	return readSource[string]("ReadText", pattern, opReadText)
}

// eachLine calls fn with each line that starts in block b, and its number
// in the file (from 1) when asked for it.
func eachLine(b storage.Block, fn func(line []byte, lineNo func() int) error) error {
	return storage.ReadLines(b, storage.Newline, func(data []byte, skipped int) error {
		i := 0
		lineNo := func() int { return storage.LinesBefore(b.Path, b.Start, storage.Newline) + skipped + i + 1 }
		if b.Start == 0 {
			lineNo = func() int { return skipped + i + 1 }
		}
		for len(data) > 0 {
			line := data
			if j := bytes.IndexByte(data, '\n'); j >= 0 {
				line, data = data[:j], data[j+1:]
			} else {
				data = nil
			}
			line = bytes.TrimSuffix(line, []byte{'\r'})
			if err := fn(line, lineNo); err != nil {
				return err
			}
			i++
		}
		return nil
	})
}

func readTextOp(_ *registry.Context, raw []byte, _ []any) (any, error) {
	var b storage.Block
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opReadText, err)
	}
	out := []string{}
	err := eachLine(b, func(line []byte, _ func() int) error {
		out = append(out, string(line))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opReadText, err)
	}
	return out, nil
}

// ReadJSON makes a bag of the JSON lines of the files pattern names, each
// decoded into a T (map[string]any, or a struct with JSON tags); blank
// lines are skipped. A line that does not decode fails its partition with
// the file and line.
func ReadJSON[T any](pattern string) *Bag[T] {
	return readSource[T]("ReadJSON", pattern, readJSONOp[T]())
}

func readJSONOp[T any]() string {
	name := "bag-read-json:" + typeName[T]()
	return ensureOp(name, func() registry.Op {
		return func(_ *registry.Context, raw []byte, _ []any) (any, error) {
			var b storage.Block
			if err := json.Unmarshal(raw, &b); err != nil {
				return nil, fmt.Errorf("%s: decode arguments: %w", name, err)
			}
			out := []T{}
			err := eachLine(b, func(line []byte, lineNo func() int) error {
				if len(bytes.TrimSpace(line)) == 0 {
					return nil
				}
				var v T
				if err := json.Unmarshal(line, &v); err != nil {
					return fmt.Errorf("read %s line %d: %w", b.Path, lineNo(), err)
				}
				out = append(out, v)
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("bag-read-json: %w", err)
			}
			return out, nil
		}
	})
}

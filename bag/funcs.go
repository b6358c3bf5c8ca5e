package bag

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/duskdata/dusk/internal/codec"
	"github.com/duskdata/dusk/internal/registry"
)

// Func is a Go function registered by name (DESIGN §3), so that workers can
// run it: every binary that runs workers for the program must register it
// too (the local cluster always has it).
type Func[In, Out any] struct{ name string }

// Name is the name the function was registered under.
func (f Func[In, Out]) Name() string { return f.name }

// entry is what a registered function can do to a partition: a []In in, a
// partition or partial result out. Built at registration, where the types
// are known, so that workers need nothing but the name.
type entry struct {
	mapPart    func(any) (any, error)
	filterPart func(any) (any, error)   // Out is bool
	flatPart   func(any) (any, error)   // Out is a slice
	groupPart  func([]any) (any, error) // pieces of []In grouped by Out
	splitPart  func(any, int) (*registry.Split, error)
	call       func(any) (any, error)   // fn on one value
	callSlice  func([]any) (any, error) // fn on values gathered into an In, a slice
}

var (
	funcsMu sync.RWMutex
	funcs   = map[string]*entry{}
)

// Register makes fn callable by name from Map (and, where Out is bool, from
// Filter; where Out is a slice, from FlatMap; where Out is comparable, as
// GroupBy's key), from a package-level variable or an init function:
//
//	var area = bag.Register("area", func(r Record) string { return r.Area })
//
// Registering a name twice panics.
func Register[In, Out any](name string, fn func(In) Out) Func[In, Out] {
	e := &entry{mapPart: func(p any) (any, error) {
		in, err := part[In](p)
		if err != nil {
			return nil, err
		}
		out := make([]Out, len(in))
		for i, x := range in {
			out[i] = fn(x)
		}
		return out, nil
	}}
	if pred, ok := any(fn).(func(In) bool); ok {
		e.filterPart = func(p any) (any, error) {
			in, err := part[In](p)
			if err != nil {
				return nil, err
			}
			out := make([]In, 0, len(in))
			for _, x := range in {
				if pred(x) {
					out = append(out, x)
				}
			}
			return out, nil
		}
	}
	e.call = func(v any) (any, error) {
		if v == nil {
			var zero In
			return fn(zero), nil
		}
		x, ok := v.(In)
		if !ok {
			var zero In
			return nil, fmt.Errorf("input is a %T, not a %T", v, zero)
		}
		return fn(x), nil
	}
	if inT := reflect.TypeFor[In](); inT.Kind() == reflect.Slice {
		e.callSlice = func(vs []any) (any, error) {
			s := reflect.MakeSlice(inT, len(vs), len(vs))
			for i, v := range vs {
				rv := reflect.ValueOf(v)
				if !rv.IsValid() || !rv.Type().AssignableTo(inT.Elem()) {
					return nil, fmt.Errorf("input %d is a %T, not a %s", i, v, inT.Elem())
				}
				s.Index(i).Set(rv)
			}
			return fn(s.Interface().(In)), nil
		}
	}
	registerCodec[Out]()
	outT := reflect.TypeFor[Out]()
	if outT.Kind() == reflect.Slice {
		e.flatPart = func(p any) (any, error) {
			in, err := part[In](p)
			if err != nil {
				return nil, err
			}
			acc := reflect.MakeSlice(outT, 0, len(in))
			for _, x := range in {
				acc = reflect.AppendSlice(acc, reflect.ValueOf(fn(x)))
			}
			return acc.Interface(), nil
		}
		registerPartCodec(outT)
	}
	if outT.Comparable() {
		e.splitPart = func(p any, n int) (*registry.Split, error) {
			in, err := part[In](p)
			if err != nil {
				return nil, err
			}
			pieces := make([][]In, n)
			for _, x := range in {
				j := hashOf(any(fn(x))) % uint64(n)
				pieces[j] = append(pieces[j], x)
			}
			s := &registry.Split{Pieces: make([]any, n)}
			for j, pc := range pieces {
				if pc != nil {
					s.Pieces[j] = pc
				}
			}
			return s, nil
		}
		e.groupPart = func(pieces []any) (any, error) {
			index := map[any]int{}
			var out []Pair[Out, []In]
			for _, p := range pieces {
				in, err := part[In](p)
				if err != nil {
					return nil, err
				}
				for _, x := range in {
					k := fn(x)
					i, ok := index[any(k)]
					if !ok {
						i = len(out)
						index[any(k)] = i
						out = append(out, Pair[Out, []In]{Key: k})
					}
					out[i].Value = append(out[i].Value, x)
				}
			}
			return out, nil
		}
		registerCodec[[]Pair[Out, []In]]()
	}
	registerCodec[[]In]()
	registerCodec[[]Out]()
	funcsMu.Lock()
	defer funcsMu.Unlock()
	if _, ok := funcs[name]; ok {
		panic(fmt.Sprintf("bag: function %q is registered twice", name))
	}
	funcs[name] = e
	registry.Provide(funcNeed(name))
	return Func[In, Out]{name: name}
}

// funcNeed is what a task that calls the bag function name needs of its
// worker's binary (graph.Task.Needs).
func funcNeed(name string) string { return "bag:" + name }

func lookup(name string) (*entry, error) {
	funcsMu.RLock()
	e, ok := funcs[name]
	funcsMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("bag function %q is not registered in this binary: register it with "+
			"bag.Register(%q, fn) in a package-level variable or init function of a package that "+
			"every binary running workers imports", name, name)
	}
	return e, nil
}

// part asserts a partition's type.
func part[T any](p any) ([]T, error) {
	if p == nil {
		return nil, nil
	}
	in, ok := p.([]T)
	if !ok {
		var zero []T
		return nil, fmt.Errorf("partition holds a %T, not a %T", p, zero)
	}
	return in, nil
}

// Pair is a key and its value: what Frequencies, FoldBy and GroupBy yield.
type Pair[K, V any] struct {
	Key   K
	Value V
}

// ensureOp registers op under name unless it is already: the bag's typed
// operations are instantiated per element type where a bag of that type is
// built (see RegisterType for workers in other binaries).
func ensureOp(name string, op func() registry.Op) string {
	if _, err := registry.Lookup(name); err == nil {
		return name
	}
	opsMu.Lock()
	defer opsMu.Unlock()
	if _, err := registry.Lookup(name); err != nil {
		registry.Register(name, op())
	}
	return name
}

var opsMu sync.Mutex

// typeName names T in operation and codec names.
func typeName[T any]() string { return reflect.TypeFor[T]().String() }

// registerCodec gives values of type T a codec, for results that cross
// processes: gob (compact, typed) unless T holds interface values, which
// gob cannot carry without registering their types; those go as JSON.
func registerCodec[T any]() { registerPartCodec(reflect.TypeFor[T]()) }

func registerPartCodec(t reflect.Type) {
	if hasInterface(t, map[reflect.Type]bool{}) {
		codec.Register(t, reflectCodec{t: t, json: true})
		return
	}
	codec.Register(t, reflectCodec{t: t})
}

func hasInterface(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return hasInterface(t.Elem(), seen)
	case reflect.Map:
		return hasInterface(t.Key(), seen) || hasInterface(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if hasInterface(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// reflectCodec encodes values of one type with gob or JSON.
type reflectCodec struct {
	t    reflect.Type
	json bool
}

func (c reflectCodec) Name() string {
	if c.json {
		return "bag-json:" + c.t.String()
	}
	return "bag-gob:" + c.t.String()
}

func (c reflectCodec) Encode(w io.Writer, v any) error {
	if c.json {
		return json.NewEncoder(w).Encode(v)
	}
	return gob.NewEncoder(w).Encode(v)
}

func (c reflectCodec) Decode(r io.Reader) (any, error) {
	p := reflect.New(c.t)
	var err error
	if c.json {
		err = json.NewDecoder(r).Decode(p.Interface())
	} else {
		err = gob.NewDecoder(r).Decode(p.Interface())
	}
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", c.t, err)
	}
	return p.Elem().Interface(), nil
}

// encodeGob encodes v for task arguments (FromSequence's items, initial
// values): gob, or JSON for types holding interfaces.
func encodeArg[T any](v T) ([]byte, error) {
	var buf bytes.Buffer
	c := reflectCodec{t: reflect.TypeFor[T](), json: hasInterface(reflect.TypeFor[T](), map[reflect.Type]bool{})}
	if err := c.Encode(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeArg[T any](b []byte) (T, error) {
	c := reflectCodec{t: reflect.TypeFor[T](), json: hasInterface(reflect.TypeFor[T](), map[reflect.Type]bool{})}
	v, err := c.Decode(bytes.NewReader(b))
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}

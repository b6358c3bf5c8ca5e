package dusk

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/codec"
)

// Ref is a future's result inside a task's argument (Future.Ref): it
// travels as the future's key, the task waits for that result on the
// cluster, and the function reads it with Value. Several Refs, in struct
// fields, slices or maps, make a task of several futures:
//
//	type pair struct{ A, B dusk.Ref[int] }
//	add := dusk.Register("add", func(_ context.Context, p pair) (int, error) { return p.A.Value() + p.B.Value(), nil })
//	sum, err := add.Submit(ctx, pair{x.Ref(), y.Ref()})
type Ref[T any] struct {
	key graph.Key
	v   T
}

// Value is the future's result, inside the task that reads it.
func (r Ref[T]) Value() T { return r.v }

// Key is the key of the future r stands for.
func (r Ref[T]) Key() graph.Key { return r.key }

// MarshalJSON writes the future's key.
func (r Ref[T]) MarshalJSON() ([]byte, error) { return json.Marshal(string(r.key)) }

// UnmarshalJSON reads the future's key; the task sets its value.
func (r *Ref[T]) UnmarshalJSON(b []byte) error {
	var k string
	if err := json.Unmarshal(b, &k); err != nil {
		return fmt.Errorf("a Ref is a future's key: %w", err)
	}
	r.key = graph.Key(k)
	return nil
}

func (r *Ref[T]) refKey() graph.Key { return r.key }

func (r *Ref[T]) setRef(v any) (err error) {
	r.v, err = codec.Decode[T](v)
	return err
}

// refSlot is a *Ref of any type, as walkRefs finds them.
type refSlot interface {
	refKey() graph.Key
	setRef(v any) error
}

var refSlotType = reflect.TypeFor[refSlot]()

// hasRefs reports whether values of t can hold a Ref, so that arguments of
// other types are never walked.
func hasRefs(t reflect.Type) bool { return holdsRefs(t, map[reflect.Type]bool{}) }

func holdsRefs(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if reflect.PointerTo(t).Implements(refSlotType) {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsRefs(t.Elem(), seen)
	case reflect.Map:
		return holdsRefs(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && holdsRefs(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// walkRefs calls fn on every Ref in v, which must be addressable, as JSON
// sees it: exported fields, elements, map values.
func walkRefs(v reflect.Value, fn func(refSlot) error) error {
	if v.CanAddr() {
		if r, ok := v.Addr().Interface().(refSlot); ok {
			return fn(r)
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return walkRefs(v.Elem(), fn)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if err := walkRefs(v.Index(i), fn); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(iter.Value())
			if err := walkRefs(e, fn); err != nil {
				return err
			}
			v.SetMapIndex(iter.Key(), e)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				if err := walkRefs(v.Field(i), fn); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// refKeys returns the keys of the Refs in arg, each once, in the order met.
func refKeys[T any](arg T) []graph.Key {
	var keys []graph.Key
	seen := map[graph.Key]bool{}
	walkRefs(reflect.ValueOf(&arg).Elem(), func(r refSlot) error {
		if k := r.refKey(); k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		return nil
	})
	return keys
}

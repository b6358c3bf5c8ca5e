// Package kernel holds Dusk's columnar kernels: typed loops over Arrow
// buffers for comparisons, arithmetic, selection, grouping, aggregation,
// concatenation and sorting. Each works on whole columns, never one boxed
// value at a time, and is tested against a plain Go reference.
//
// Column types: int64, float64, bool, and strings either plain (utf8) or
// dictionary-encoded (dictionary<int32, utf8>, as the CSV reader makes them).
//
// Ownership: kernels never release their inputs. The arrays and records they
// return belong to the caller; they may share buffers with the inputs (a
// selection of every row returns the input, retained).
//
// It sits below every collection and reader (io, bag, array, bench and
// dataframe all build on it), so it must never import them, nor anything of
// Dusk but graph: it is pure computation.
package kernel

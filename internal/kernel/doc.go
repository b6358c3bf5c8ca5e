// Package kernel holds Dusk's columnar kernels: typed loops over Arrow
// buffers for comparisons, arithmetic, selection, grouping, aggregation,
// concatenation and sorting. Each works on whole columns, never one boxed
// value at a time, and is tested against a plain Go reference.
//
// Column types (logical.go, one table: kernel.Logical per kind): every integer width signed and
// unsigned, float32 and float64, bool, strings either plain (utf8) or
// dictionary-encoded (dictionary<int32, utf8>, as the CSV reader makes
// them), date32, timestamps, durations and decimal128. Kernels that compute
// read columns through Widen (int64, float64, bool or strings); kernels
// that move rows copy any fixed width by its byte width, so a column keeps
// its type. Expressions' kernels (math, strings, casts, conditionals, date
// parts) and aggregations (agg.go, one table) build on these.
//
// Ownership: kernels never release their inputs. The arrays and records they
// return belong to the caller; they may share buffers with the inputs (a
// selection of every row returns the input, retained).
//
// It sits below every collection and reader (io, bag, array, bench and
// dataframe all build on it) and is pure computation.
//
// Must never import: anything of Dusk but graph and internal/alloc. (alloc
// gives a result that is about to be written over whole uncleared memory.)
package kernel

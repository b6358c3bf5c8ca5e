// Package agg holds a grouping's operations: the arguments a grouping's
// tasks carry (args.go), each partition's partial states by the
// aggregation table of internal/kernel, their combination in a tree or
// after a shuffle and their final values (ops.go), the GPU's partials
// (gpu.go), the holistic aggregations over a group's gathered rows
// (holistic.go) and a user's function over each group (apply.go). Which
// way a grouping combines is the plan's choice (dataframe/internal/plan's
// groupby.go and adaptagg.go).
//
// Must never import: dataframe/internal/plan, scheduler, worker, a transport.
package agg

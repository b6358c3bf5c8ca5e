// Package plan is a dataframe's logical plan: a Node per step (plan.go,
// with how rows are partitioned and how a plan lowers to a graph of
// tasks), the steps themselves by family (frame.go and frameops.go:
// projections, filters, columns, renames, limits, concatenation; source.go,
// files.go and hive.go: reading files and Go values; groupby.go and
// adaptagg.go: groupings; join.go and joinstrategy.go: joins and how
// each is carried out; sort.go, shuffle.go), the optimizer (optimize.go:
// pruning columns, pushing filters down to readers and into joins),
// Explain, and the steps whose way depends on sizes known only by
// running, settled just before a plan runs (adapt.go). Its tasks name the
// operations of ops, exchange and agg.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, a transport.
package plan

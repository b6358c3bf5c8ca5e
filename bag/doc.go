// Package bag is Dusk's lazy, partitioned collection of Go values, for messy
// records, JSON and text: map, filter, fold and group them on the cluster.
// Its operations are built on graph and run through collections.Executor,
// like the dataframe's.
//
// Must never import: scheduler, worker, internal/cluster or a transport.
package bag

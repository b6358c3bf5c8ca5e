// Package bag is Dusk's lazy, partitioned collection of Go values, for messy
// records, JSON and text: map, filter, fold and group them on the cluster.
// Its operations are built on graph and run through collections.Executor,
// like the dataframe's.
//
// A Bag[T] is a graph whose partitions are []T. Sources: FromSequence,
// FromPartitions, ReadText, ReadJSON. Item-wise: Map, Filter, FlatMap,
// Pluck, with functions registered by name (Register; DESIGN §3).
// Reductions are trees of SplitEvery inputs: Count, Sum, Min, Max, Mean, Var, Std,
// Frequencies, Distinct, TopK, FoldBy (RegisterFold) and Reduction;
// GroupBy is a peer-to-peer hash shuffle. Take computes as many leading
// partitions as it needs (Dask's take looks only at the first). ToText and
// ToJSON write one file per partition.
//
// Items cross processes gob-encoded, or as JSON where T holds interface
// values (map[string]any: numbers come back as float64). Operations typed
// by the element type (FromSequence, ReadJSON, Sum, Frequencies...) are
// registered when a bag of that type is first built in the process: the
// local cluster always has them; a worker in another binary has them if
// that binary builds such a bag too, or calls RegisterType[T] (or
// RegisterComparable, RegisterOrdered, RegisterNumber) at init.
//
// Repartition concatenates or slices partitions without a shuffle.
// FromDataFrame and ToDataFrame convert to and from a dataframe.Frame of
// rows as map[string]any, lazily, a partition for a partition.
//
// Must never import: scheduler, worker, scheduler/server, worker/process or a transport.
package bag

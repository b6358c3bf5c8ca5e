// Package io is the home of Dusk's readers and writers. Its subpackages each
// own one format or concern:
//
//	io/storage  finding and opening the files a pattern names (local paths)
//	io/csv      parsing CSV straight into Arrow columns
//
// Readers produce Arrow records of bounded size; they know nothing of tasks
// or graphs. They build columns with the pure kernels of dataframe/kernel.
// Must never import: scheduler, worker, internal/cluster, or the collections
// themselves (dataframe, bag, array).
package io

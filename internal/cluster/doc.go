// Package cluster runs the scheduler and worker cores as live processes: each
// driver is one goroutine that feeds its core the messages arriving on a
// transport.Network and carries out what the core decides. The same drivers
// run the in-process local cluster and, over gRPC, the daemons.
//
// Must never import: the collections (dataframe, bag, array).
package cluster

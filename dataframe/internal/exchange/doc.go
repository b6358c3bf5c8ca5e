// Package exchange holds the operations that move rows between
// partitions: the pieces a shuffle sends and how a task reads them back
// as one table (pieces.go), hash splits, concatenation, deduplication and
// repartitioning (shuffle.go), sorts by sampled range bounds, Loc, top-n
// and limits (sort.go), and joins: hash joins of gathered sides, built
// sides shared by a broadcast, scans that read only the rows a built
// side may meet, and mark joins (joinops.go). Each registers itself with
// internal/registry (exchange.go); plan lowers joins, sorts and shuffles
// to them (DESIGN §7 for the peer-to-peer shuffle).
//
// Must never import: dataframe/internal/plan, dataframe/internal/agg, scheduler, worker, a transport.
package exchange

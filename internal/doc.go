// Package internal holds the pieces of Dusk that its public packages share but
// users never touch: the operation registry, the messages between client,
// scheduler and workers, the transports, and the processes that run the
// scheduler and worker cores.
//
// Must never import: anything outside the standard library; it holds no code.
package internal

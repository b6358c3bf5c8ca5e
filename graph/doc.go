// Package graph is Dusk's task graph: tasks as data (an operation name, its
// encoded arguments, the keys of its inputs and the resources it needs),
// deterministic keys, culling to the requested keys, fusion of linear chains
// into one task, and the priority order in which tasks should run.
//
// Owns: Task, Key, Resources, Graph, Token, Cull, Fuse, Order.
// Must never import: scheduler, worker, the collections, or any transport;
// every other part of Dusk imports graph, so it stays a leaf.
package graph

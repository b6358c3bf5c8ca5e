// Package bench is Dusk's benchmark suite: deterministic generators for the
// db-benchmark data layouts and the scenarios users compare engines by.
//
// Must never import: scheduler, worker, scheduler/server, worker/process: it runs through the
// public API, as a user would.
package bench

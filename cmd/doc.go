// Package cmd holds Dusk's commands: cmd/dusk runs a scheduler, a worker or
// the benchmark suite. Commands are thin: they parse flags and call the
// packages that do the work.
//
// Must never be imported by any other package.
//
// Must never import: anything outside the standard library; it holds no code.
package cmd

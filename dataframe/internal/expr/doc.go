// Package expr is the first stage of a dataframe's pipeline: expressions
// as plans and tasks hold them (Node, serialized as JSON in a task's
// arguments, and Literal), their typing against a schema (TypeOf: the
// rules by which types meet, CommonType, and casts, CastRule), and their
// evaluation over a record (Eval), every operation described once in the
// table of functions.go, with its kernels from internal/kernel and its
// GPU shortcuts. The dataframe package builds Nodes through its public
// Expr API and plans and runs them; the package is internal to it, so
// that users build expressions through that API alone.
//
// Must never import: dataframe, scheduler, worker, a transport, io.
package expr

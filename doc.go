// Package dusk is the entry point to Dusk, a distributed dataframe engine:
// a Client connects a program to a cluster (by default an in-process one,
// with one worker per core), and the lazy collections in dataframe, bag and
// array run their task graphs on it.
//
//	client, err := dusk.NewClient(ctx) // local cluster
//	defer client.Close()
//	df := dataframe.ReadCSV("data/2014-*.csv")
//	out, err := df.Filter(dataframe.Col("num_clicks").Gt(2)).
//		GroupBy("area").Agg(dataframe.Sum("num_clicks")).Compute(ctx)
//
// Compute and Persist use the client in the context (WithClient), else the
// client most recently started and not yet closed.
//
// Plain Go functions run on the cluster once registered by name (Register),
// as futures: Submit, Map and Gather, like Dask's client.submit, client.map
// and client.gather.
//
// Must never import: bench, cmd/dusk, examples, cmd/dusktest,
// collections/testcluster or internal/s3test: a program that uses Dusk carries
// no benchmark or test helper.
package dusk

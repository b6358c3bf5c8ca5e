// Package io is the home of Dusk's readers and writers. Its subpackages each
// own one format or concern:
//
//	io/storage  paths and object-store URLs: listing, glob datums, line
//	            blocks, atomic writes, compressed streams
//	io/files    the one interface every format implements (describe a
//	            set of files, read a slice with projected columns and
//	            filters, write a record), and the formats by name
//	io/csv      parsing CSV straight into Arrow columns, and writing it
//	io/jsonl    JSON lines to and from Arrow records
//	io/parquet  Parquet (parquet-go) to and from Arrow records
//	io/avro     Avro object container files (hamba/avro) to and from Arrow
//	io/cache    the incremental cache: a graph rewrite that recomputes
//	            only the datums whose files changed, and its load and
//	            store tasks
//	io/internal/strdict, io/internal/colbuild  what the parsers share:
//	            dictionary tables for strings, typed column building
//	io/internal/iotest  test records and readers for the format tests
//
// Each format package implements files.Format and registers itself, so
// that the collections hold no per-format glue: adding a format is one
// package and its registration (an import where the collections import
// the others, dataframe/formats.go). Readers produce Arrow records of
// bounded size; they know nothing of tasks or graphs (io/cache apart,
// which rewrites graphs). They build columns with the pure kernels of
// internal/kernel.
//
// Must never import: scheduler, worker, scheduler/server, worker/process,
// or the collections (collections, dataframe, bag, array).
package io

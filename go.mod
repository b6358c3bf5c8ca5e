module github.com/duskdata/dusk

go 1.24.0

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/cockroachdb/datadriven v1.0.3
)

require github.com/pmezard/go-difflib v1.0.0 // indirect

module github.com/pingcap/go-tpc

go 1.21

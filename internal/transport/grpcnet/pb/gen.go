// Package pb is the generated wire code of dusk.proto (with vtprotobuf's
// straight-line marshalling beside protobuf's). Regenerating it needs
// protoc (Debian's protobuf-compiler) and the Go plugins:
//
//	apt-get install protobuf-compiler
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
//	go install github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto@v0.6.0
//	go generate ./internal/transport/grpcnet/pb
//
// Must never import: anything of Dusk: it is the wire format alone.
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative --go-vtproto_out=. --go-vtproto_opt=paths=source_relative --go-vtproto_opt=features=marshal+unmarshal+size dusk.proto

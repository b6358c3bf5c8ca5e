// Package pb is the generated wire code of dusk.proto. Regenerating it needs
// protoc (Debian's protobuf-compiler) and the Go plugins:
//
//	apt-get install protobuf-compiler
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
//	go generate ./internal/transport/grpcnet/pb
//
// Must never import: anything of Dusk: it is the wire format alone.
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative dusk.proto

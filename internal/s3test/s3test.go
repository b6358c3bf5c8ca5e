// Package s3test serves the S3 protocol on 127.0.0.1 for tests, with
// gofakes3 over real HTTP, and points the AWS environment variables at it.
//
// Must never import: anything of Dusk.
package s3test

import (
	"net"
	"net/http"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Start serves an S3 store holding an empty bucket for the rest of the test,
// sets AWS_ENDPOINT_URL, the credentials and the region for it (restored at
// the end of the test), and returns the bucket's URL, "s3://bucket".
func Start(t testing.TB, bucket string) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatalf("s3test: create bucket %s: %v", bucket, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	srv := &http.Server{Handler: gofakes3.New(backend).Server()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	t.Setenv("AWS_ENDPOINT_URL", "http://"+ln.Addr().String())
	t.Setenv("AWS_ACCESS_KEY_ID", "dusk-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "dusk-test-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return "s3://" + bucket
}

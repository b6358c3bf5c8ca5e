package grpcnet

import (
	"strings"
	"testing"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/transport/grpcnet/pb"
)

// A task's spec that comes damaged off the wire fails the message, naming
// the task it was, before the scheduler or a worker reads it.
func TestDamagedSpecRefused(t *testing.T) {
	good := (&graph.Task{Key: "a-0", Op: "op", Inputs: []graph.Key{"b-0"}}).Spec()
	bad := []byte(good)[:len(good)-1]
	_, err := msgFromWire(&pb.Msg{Kind: &pb.Msg_UpdateGraph{UpdateGraph: &pb.UpdateGraph{
		Specs: [][]byte{[]byte(good), bad}}}})
	if err == nil || !strings.Contains(err.Error(), "task 1") {
		t.Fatalf("a cut spec: %v", err)
	}
	_, err = msgFromWire(&pb.Msg{Kind: &pb.Msg_ComputeTask{ComputeTask: &pb.ComputeTask{Spec: bad}}})
	if err == nil || !strings.Contains(err.Error(), "compute-task") {
		t.Fatalf("a cut spec: %v", err)
	}
}

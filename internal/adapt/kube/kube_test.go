package kube

import (
	"context"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// These tests run against client-go's fake clientset (an object tracker
// that serves the API in memory), not a real API server.

func workerPod(name string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"app": "dusk-worker"}},
		Status: corev1.PodStatus{Phase: phase}}
}

func node(name string, ready, cordoned bool) *corev1.Node {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Unschedulable: cordoned},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
}

// The provider lists the Deployment's live pods (and the replicas not yet
// given one), grows the replicas, marks the pods chosen to go with the
// lowest deletion cost before shrinking them, and counts the ready,
// schedulable nodes.
func TestProvider(t *testing.T) {
	replicas := int32(2)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "dusk-worker", Namespace: "ns"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "dusk-worker"}}}}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "scheduler", Namespace: "ns", Labels: map[string]string{"app": "dusk-scheduler"}}}
	client := fake.NewClientset(dep, other, workerPod("w-a", corev1.PodRunning), workerPod("w-b", corev1.PodRunning),
		workerPod("w-old", corev1.PodSucceeded),
		node("n1", true, false), node("n2", false, false), node("n3", true, true), node("n4", true, false))
	p := &Provider{Client: client, Namespace: "ns", Name: "dusk-worker"}
	ctx := context.Background()

	if got := p.Workers(); !reflect.DeepEqual(got, []string{"w-a", "w-b"}) {
		t.Fatalf("workers %v", got)
	}
	if err := p.Start(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if got := p.Workers(); !reflect.DeepEqual(got, []string{"w-a", "w-b", "(starting)", "(starting)"}) {
		t.Fatalf("after Start(2): %v", got)
	}
	if err := p.Stop(ctx, []string{"w-b"}); err != nil {
		t.Fatal(err)
	}
	d, err := client.AppsV1().Deployments("ns").Get(ctx, "dusk-worker", metav1.GetOptions{})
	if err != nil || *d.Spec.Replicas != 3 {
		t.Fatalf("replicas after Stop: %v, %v", d.Spec.Replicas, err)
	}
	pod, err := client.CoreV1().Pods("ns").Get(ctx, "w-b", metav1.GetOptions{})
	if err != nil || pod.Annotations[deletionCost] != "-1000" {
		t.Fatalf("the pod to go is not marked: %v, %v", pod.Annotations, err)
	}
	if pod, _ := client.CoreV1().Pods("ns").Get(ctx, "w-a", metav1.GetOptions{}); pod.Annotations[deletionCost] != "" {
		t.Fatalf("a pod that stays is marked: %v", pod.Annotations)
	}
	if n, err := p.Nodes(ctx); err != nil || n != 2 {
		t.Fatalf("%d nodes take pods (%v); want 2", n, err)
	}
	if err := p.Stop(ctx, []string{"w-gone"}); err == nil {
		t.Fatal("stopping a pod that is not there is no error")
	}
}

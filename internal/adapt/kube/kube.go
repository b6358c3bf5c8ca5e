// Package kube is the adaptive Provider of workers as the pods of a
// Kubernetes Deployment (k8s.io/client-go): it grows the Deployment's
// replicas, and shrinks it by the workers chosen to go, which it marks
// with the lowest pod-deletion cost so that the ReplicaSet removes those
// pods and not busy ones; each gets SIGTERM and retires, handing its
// results on. Workers join the scheduler under their pod's name (--name
// from the downward API). It also counts the cluster's nodes, for Helm's
// coefficient parallelism (workers per node).
//
// Must never import: scheduler, worker, internal/cluster, or the collections.
package kube

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// deletionCost is the annotation the ReplicaSet controller reads to pick
// which pods to remove first when a Deployment shrinks.
const deletionCost = "controller.kubernetes.io/pod-deletion-cost"

// Provider scales the Deployment Name in Namespace.
type Provider struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string

	mu sync.Mutex
}

// InCluster is the Provider of a scheduler running in a pod: the API
// server and credentials are its service account's; namespace "" is the
// pod's own.
func InCluster(namespace, deployment string) (*Provider, error) {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes provider: %w", err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes provider: %w", err)
	}
	if namespace == "" {
		b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
		if err != nil {
			return nil, fmt.Errorf("kubernetes provider: the pod's namespace: %w", err)
		}
		namespace = strings.TrimSpace(string(b))
	}
	return &Provider{Client: c, Namespace: namespace, Name: deployment}, nil
}

// Workers names the Deployment's pods that are not going away, and stands
// in "(starting)" for each replica asked for that has no pod yet.
func (p *Provider) Workers() []string {
	ctx := context.Background()
	d, err := p.Client.AppsV1().Deployments(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil
	}
	pods, err := p.Client.CoreV1().Pods(p.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil
	}
	var names []string
	for _, pod := range pods.Items {
		if pod.DeletionTimestamp == nil && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
			names = append(names, pod.Name)
		}
	}
	slices.Sort(names)
	want := 0
	if d.Spec.Replicas != nil {
		want = int(*d.Spec.Replicas)
	}
	for len(names) < want {
		names = append(names, "(starting)")
	}
	return names
}

// Start adds n replicas.
func (p *Provider) Start(ctx context.Context, n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addReplicas(ctx, n)
}

// Stop marks the named pods to go first and removes as many replicas.
func (p *Provider) Stop(ctx context.Context, names []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"-1000"}}}`, deletionCost)
	for _, name := range names {
		if _, err := p.Client.CoreV1().Pods(p.Namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("kubernetes provider: mark pod %s to go: %w", name, err)
		}
	}
	return p.addReplicas(ctx, -len(names))
}

func (p *Provider) addReplicas(ctx context.Context, n int) error {
	deps := p.Client.AppsV1().Deployments(p.Namespace)
	d, err := deps.Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("kubernetes provider: deployment %s/%s: %w", p.Namespace, p.Name, err)
	}
	have := 0
	if d.Spec.Replicas != nil {
		have = int(*d.Spec.Replicas)
	}
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, max(0, have+n))
	if _, err := deps.Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("kubernetes provider: scale %s/%s to %d: %w", p.Namespace, p.Name, max(0, have+n), err)
	}
	return nil
}

// Nodes counts the nodes that take pods: ready and not cordoned.
func (p *Provider) Nodes(ctx context.Context) (int, error) {
	nodes, err := p.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: labels.Everything().String()})
	if err != nil {
		return 0, fmt.Errorf("kubernetes provider: count nodes: %w", err)
	}
	n := 0
	for _, node := range nodes.Items {
		if node.Spec.Unschedulable {
			continue
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				n++
				break
			}
		}
	}
	return n, nil
}

// Close does nothing: the Deployment stays as it is.
func (p *Provider) Close() {}

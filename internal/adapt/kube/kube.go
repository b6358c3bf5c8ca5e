// Package kube is the adaptive Provider of workers as the pods of a
// Kubernetes Deployment: it grows the Deployment's replicas, and shrinks it
// by the workers chosen to go, which it marks with the lowest
// pod-deletion cost so that the ReplicaSet removes those pods and not busy
// ones; each gets SIGTERM and retires, handing its results on. Workers join
// the scheduler under their pod's name (--name from the downward API). It
// also counts the cluster's nodes, for the Helm chart's workers per node.
//
// It speaks the API server's REST interface itself, with the pod's service
// account, rather than through k8s.io/client-go: linked into the dusk
// binary, client-go made every worker process start 31 MB larger, and a
// worker limited to 256 MiB spent four times as long spilling.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, or the collections.
package kube

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// deletionCost is the annotation the ReplicaSet controller reads to pick
// which pods to remove first when a Deployment shrinks.
const deletionCost = "controller.kubernetes.io/pod-deletion-cost"

// serviceAccount is where Kubernetes mounts a pod's credentials.
const serviceAccount = "/var/run/secrets/kubernetes.io/serviceaccount"

// Provider scales the Deployment Name in Namespace through the API server
// at Server (https://host:port), presenting Token.
type Provider struct {
	Server    string
	Token     string
	Client    *http.Client
	Namespace string
	Name      string

	mu sync.Mutex
}

// InCluster is the Provider of a scheduler running in a pod: the API
// server from the pod's environment, its service account's token and CA;
// namespace "" is the pod's own.
func InCluster(namespace, deployment string) (*Provider, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("kubernetes provider: not in a pod (KUBERNETES_SERVICE_HOST is not set)")
	}
	token, err := os.ReadFile(serviceAccount + "/token")
	if err != nil {
		return nil, fmt.Errorf("kubernetes provider: the service account's token: %w", err)
	}
	caPEM, err := os.ReadFile(serviceAccount + "/ca.crt")
	if err != nil {
		return nil, fmt.Errorf("kubernetes provider: the service account's CA: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("kubernetes provider: no certificate in %s/ca.crt", serviceAccount)
	}
	if namespace == "" {
		b, err := os.ReadFile(serviceAccount + "/namespace")
		if err != nil {
			return nil, fmt.Errorf("kubernetes provider: the pod's namespace: %w", err)
		}
		namespace = strings.TrimSpace(string(b))
	}
	client := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	return &Provider{Server: "https://" + net.JoinHostPort(host, port), Token: strings.TrimSpace(string(token)),
		Client: client, Namespace: namespace, Name: deployment}, nil
}

// The few fields of the API's objects the provider reads.
type (
	meta struct {
		Name              string            `json:"name"`
		DeletionTimestamp *string           `json:"deletionTimestamp,omitempty"`
		Annotations       map[string]string `json:"annotations,omitempty"`
	}
	deployment struct {
		Spec struct {
			Replicas *int `json:"replicas"`
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
		} `json:"spec"`
	}
	podList struct {
		Items []struct {
			Metadata meta `json:"metadata"`
			Status   struct {
				Phase string `json:"phase"`
			} `json:"status"`
		} `json:"items"`
	}
	nodeList struct {
		Items []struct {
			Spec struct {
				Unschedulable bool `json:"unschedulable"`
			} `json:"spec"`
			Status struct {
				Conditions []struct {
					Type   string `json:"type"`
					Status string `json:"status"`
				} `json:"conditions"`
			} `json:"status"`
		} `json:"items"`
	}
)

// call makes one request; out, if not nil, receives the JSON answer.
func (p *Provider) call(ctx context.Context, method, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, p.Server+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.Token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	resp, err := p.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var status struct{ Message string }
		if json.Unmarshal(b, &status) == nil && status.Message != "" {
			return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, status.Message)
		}
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

func (p *Provider) deploymentPath() string {
	return "/apis/apps/v1/namespaces/" + url.PathEscape(p.Namespace) + "/deployments/" + url.PathEscape(p.Name)
}

func (p *Provider) deployment(ctx context.Context) (*deployment, error) {
	var d deployment
	if err := p.call(ctx, http.MethodGet, p.deploymentPath(), nil, &d); err != nil {
		return nil, fmt.Errorf("kubernetes provider: deployment %s/%s: %w", p.Namespace, p.Name, err)
	}
	return &d, nil
}

// Workers names the Deployment's pods that are not going away, and stands
// in "(starting)" for each replica asked for that has no pod yet.
func (p *Provider) Workers() ([]string, error) {
	ctx := context.Background()
	d, err := p.deployment(ctx)
	if err != nil {
		return nil, err
	}
	var sel []string
	for k, v := range d.Spec.Selector.MatchLabels {
		sel = append(sel, k+"="+v)
	}
	slices.Sort(sel)
	var pods podList
	path := "/api/v1/namespaces/" + url.PathEscape(p.Namespace) + "/pods?labelSelector=" + url.QueryEscape(strings.Join(sel, ","))
	if err := p.call(ctx, http.MethodGet, path, nil, &pods); err != nil {
		return nil, fmt.Errorf("kubernetes provider: pods of %s/%s: %w", p.Namespace, p.Name, err)
	}
	var names []string
	for _, pod := range pods.Items {
		if pod.Metadata.DeletionTimestamp == nil && pod.Status.Phase != "Succeeded" && pod.Status.Phase != "Failed" {
			names = append(names, pod.Metadata.Name)
		}
	}
	slices.Sort(names)
	want := 0
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	for len(names) < want {
		names = append(names, "(starting)")
	}
	return names, nil
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
		path := "/api/v1/namespaces/" + url.PathEscape(p.Namespace) + "/pods/" + url.PathEscape(name)
		if err := p.call(ctx, http.MethodPatch, path, patch, nil); err != nil {
			return fmt.Errorf("kubernetes provider: mark pod %s to go: %w", name, err)
		}
	}
	return p.addReplicas(ctx, -len(names))
}

func (p *Provider) addReplicas(ctx context.Context, n int) error {
	d, err := p.deployment(ctx)
	if err != nil {
		return err
	}
	have := 0
	if d.Spec.Replicas != nil {
		have = *d.Spec.Replicas
	}
	to := max(0, have+n)
	if err := p.call(ctx, http.MethodPatch, p.deploymentPath(), fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, to), nil); err != nil {
		return fmt.Errorf("kubernetes provider: scale %s/%s to %d: %w", p.Namespace, p.Name, to, err)
	}
	return nil
}

// Nodes counts the nodes that take pods: ready and not cordoned.
func (p *Provider) Nodes(ctx context.Context) (int, error) {
	var nodes nodeList
	if err := p.call(ctx, http.MethodGet, "/api/v1/nodes", nil, &nodes); err != nil {
		return 0, fmt.Errorf("kubernetes provider: count nodes: %w", err)
	}
	n := 0
	for _, node := range nodes.Items {
		if node.Spec.Unschedulable {
			continue
		}
		for _, c := range node.Status.Conditions {
			if c.Type == "Ready" && c.Status == "True" {
				n++
				break
			}
		}
	}
	return n, nil
}

// Close does nothing: the Deployment stays as it is.
func (p *Provider) Close() {}

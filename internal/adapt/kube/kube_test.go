package kube

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// apiServer answers the few calls of the Kubernetes API the provider makes,
// over HTTPS, from objects it keeps as the API's JSON: a stand-in for a
// real API server, which this machine has none of.
type apiServer struct {
	mu       sync.Mutex
	replicas map[string]int               // deployments by name
	pods     map[string]map[string]string // name: {"app", "phase", "cost"}
	nodes    []map[string]any
}

func (s *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer t0ken" {
		http.Error(w, `{"message":"Unauthorized"}`, http.StatusUnauthorized)
		return
	}
	if r.Method == http.MethodPatch && r.Header.Get("Content-Type") != "application/merge-patch+json" {
		http.Error(w, `{"message":"want a merge patch"}`, http.StatusUnsupportedMediaType)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var patch map[string]map[string]any
	json.Unmarshal(body, &patch)
	send := func(v any) { json.NewEncoder(w).Encode(v) }
	notFound := func(what string) { http.Error(w, `{"message":"`+what+` not found"}`, http.StatusNotFound) }
	switch p := r.URL.Path; {
	case strings.HasPrefix(p, "/apis/apps/v1/namespaces/ns/deployments/"):
		name := strings.TrimPrefix(p, "/apis/apps/v1/namespaces/ns/deployments/")
		n, ok := s.replicas[name]
		if !ok {
			notFound("deployments.apps " + name)
			return
		}
		if r.Method == http.MethodPatch {
			n = int(patch["spec"]["replicas"].(float64))
			s.replicas[name] = n
		}
		send(map[string]any{"spec": map[string]any{"replicas": n,
			"selector": map[string]any{"matchLabels": map[string]string{"app": "dusk-worker"}}}})
	case p == "/api/v1/namespaces/ns/pods" && r.Method == http.MethodGet:
		var items []any
		for name, pod := range s.pods {
			if r.URL.Query().Get("labelSelector") == "app="+pod["app"] {
				items = append(items, map[string]any{"metadata": map[string]any{"name": name}, "status": map[string]any{"phase": pod["phase"]}})
			}
		}
		send(map[string]any{"items": items})
	case strings.HasPrefix(p, "/api/v1/namespaces/ns/pods/") && r.Method == http.MethodPatch:
		pod, ok := s.pods[strings.TrimPrefix(p, "/api/v1/namespaces/ns/pods/")]
		if !ok {
			notFound("pods")
			return
		}
		pod["cost"] = patch["metadata"]["annotations"].(map[string]any)[deletionCost].(string)
		send(map[string]any{})
	case p == "/api/v1/nodes":
		send(map[string]any{"items": s.nodes})
	default:
		notFound(r.Method + " " + p)
	}
}

func node(ready string, cordoned bool) map[string]any {
	return map[string]any{"spec": map[string]any{"unschedulable": cordoned},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready}}}}
}

// The provider lists the Deployment's live pods (and the replicas not yet
// given one), grows the replicas, marks the pods chosen to go with the
// lowest deletion cost before shrinking them, counts the ready and
// schedulable nodes, and says what the server refused.
func TestProvider(t *testing.T) {
	api := &apiServer{
		replicas: map[string]int{"dusk-worker": 2},
		pods: map[string]map[string]string{
			"w-a": {"app": "dusk-worker", "phase": "Running"}, "w-b": {"app": "dusk-worker", "phase": "Running"},
			"w-old": {"app": "dusk-worker", "phase": "Succeeded"}, "scheduler": {"app": "dusk-scheduler", "phase": "Running"}},
		nodes: []map[string]any{node("True", false), node("False", false), node("True", true), node("True", false)},
	}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	p := &Provider{Server: srv.URL, Token: "t0ken", Client: srv.Client(), Namespace: "ns", Name: "dusk-worker"}
	ctx := context.Background()

	if got, err := p.Workers(); err != nil || !reflect.DeepEqual(got, []string{"w-a", "w-b"}) {
		t.Fatalf("workers %v, %v", got, err)
	}
	if err := p.Start(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Workers(); err != nil || !reflect.DeepEqual(got, []string{"w-a", "w-b", "(starting)", "(starting)"}) {
		t.Fatalf("after Start(2): %v, %v", got, err)
	}
	if err := p.Stop(ctx, []string{"w-b"}); err != nil {
		t.Fatal(err)
	}
	api.mu.Lock()
	replicas, costB, costA := api.replicas["dusk-worker"], api.pods["w-b"]["cost"], api.pods["w-a"]["cost"]
	api.mu.Unlock()
	if replicas != 3 || costB != "-1000" || costA != "" {
		t.Fatalf("after Stop(w-b): %d replicas, costs %q and %q", replicas, costB, costA)
	}
	if n, err := p.Nodes(ctx); err != nil || n != 2 {
		t.Fatalf("%d nodes take pods (%v); want 2", n, err)
	}
	if err := p.Stop(ctx, []string{"w-gone"}); err == nil || !strings.Contains(err.Error(), "w-gone") || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("stopping a pod that is not there: %v", err)
	}
	if _, err := (&Provider{Server: srv.URL, Token: "t0ken", Client: srv.Client(), Namespace: "ns", Name: "missing"}).Workers(); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("the workers of a missing Deployment: %v", err)
	}
	if _, err := (&Provider{Server: srv.URL, Token: "wrong", Client: srv.Client(), Namespace: "ns", Name: "dusk-worker"}).Workers(); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("a wrong token: %v", err)
	}
	if _, err := InCluster("", "dusk-worker"); err == nil {
		t.Fatal("InCluster outside a pod is no error")
	}
}

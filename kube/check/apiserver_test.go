package check

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// request is one call the API server got: its verb as RBAC names it, and
// what it was about.
type request struct {
	method, verb, group, resource string
}

// apiServer plays the API server over a fakeCluster: JSON lists in pages,
// a Status for what is not found. It records every request.
type apiServer struct {
	t       testing.TB
	cluster *fakeCluster
	// forbidden is a resource the caller has no right to.
	forbidden string

	mu       sync.Mutex
	requests []request
}

// clients are the real typed clients, talking to a new apiServer over c.
func (s *apiServer) clients() APIClients {
	srv := httptest.NewServer(s)
	s.t.Cleanup(srv.Close)
	clients, err := NewAPIClients(&rest.Config{Host: srv.URL, QPS: -1})
	if err != nil {
		s.t.Fatal(err)
	}
	return clients
}

func (s *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	group, namespace, resource, name := parsePath(r.URL.Path)
	verb := map[bool]string{true: "get", false: "list"}[name != ""]
	if r.URL.Query().Get("watch") != "" {
		verb = "watch"
	}
	s.mu.Lock()
	s.requests = append(s.requests, request{method: r.Method, verb: verb, group: group, resource: resource})
	s.mu.Unlock()
	obj, err := s.read(r, namespace, resource, name)
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		status := err.(apierrors.APIStatus).Status()
		w.WriteHeader(int(status.Code))
		obj = &status
	}
	if err := json.NewEncoder(w).Encode(obj); err != nil {
		s.t.Error(err)
	}
}

// read answers one request from the fake cluster, a page at a time.
func (s *apiServer) read(r *http.Request, namespace, resource, name string) (any, error) {
	if resource == s.forbidden {
		return nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, name, errors.New("RBAC: no rule"))
	}
	ctx, q := context.Background(), r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	offset, _ := strconv.Atoi(q.Get("continue"))
	switch resource {
	case "pods":
		pods, err := s.cluster.Pods(ctx, namespace, q.Get("labelSelector"))
		items, next := page(pods, offset, limit)
		return &corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{Continue: next}, Items: items}, err
	case "jobs":
		jobs, err := s.cluster.Jobs(ctx, namespace)
		items, next := page(jobs, offset, limit)
		return &batchv1.JobList{TypeMeta: metav1.TypeMeta{Kind: "JobList", APIVersion: "batch/v1"}, ListMeta: metav1.ListMeta{Continue: next}, Items: items}, err
	case "namespaces":
		nss, err := s.cluster.Namespaces(ctx)
		items, next := page(nss, offset, limit)
		return &corev1.NamespaceList{TypeMeta: metav1.TypeMeta{Kind: "NamespaceList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{Continue: next}, Items: items}, err
	case "mutatingwebhookconfigurations":
		cfgs, err := s.cluster.MutatingWebhookConfigurations(ctx)
		items, next := page(cfgs, offset, limit)
		return &admissionregistrationv1.MutatingWebhookConfigurationList{TypeMeta: metav1.TypeMeta{Kind: "MutatingWebhookConfigurationList",
			APIVersion: "admissionregistration.k8s.io/v1"}, ListMeta: metav1.ListMeta{Continue: next}, Items: items}, err
	case "deployments":
		return s.cluster.Deployment(ctx, namespace, name)
	case "clusterrolebindings":
		bindings, err := s.cluster.ClusterRoleBindings(ctx)
		items, next := page(bindings, offset, limit)
		return &rbacv1.ClusterRoleBindingList{TypeMeta: metav1.TypeMeta{Kind: "ClusterRoleBindingList", APIVersion: "rbac.authorization.k8s.io/v1"},
			ListMeta: metav1.ListMeta{Continue: next}, Items: items}, err
	case "clusterroles":
		roles, err := s.cluster.ClusterRoles(ctx)
		items, next := page(roles, offset, limit)
		return &rbacv1.ClusterRoleList{TypeMeta: metav1.TypeMeta{Kind: "ClusterRoleList", APIVersion: "rbac.authorization.k8s.io/v1"},
			ListMeta: metav1.ListMeta{Continue: next}, Items: items}, err
	case "nodes":
		nodes, err := s.cluster.Nodes(ctx)
		items, next := page(nodes, offset, limit)
		return &corev1.NodeList{TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{Continue: next}, Items: items}, err
	}
	s.t.Errorf("unexpected request %s %s", r.Method, r.URL)
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: resource}, name)
}

// page cuts items at offset, limit long, and says where the next starts.
func page[T any](items []T, offset, limit int) ([]T, string) {
	if limit == 0 || offset+limit >= len(items) {
		return items[min(offset, len(items)):], ""
	}
	return items[offset : offset+limit], strconv.Itoa(offset + limit)
}

// parsePath reads /api/v1/[namespaces/NS/]RESOURCE[/NAME] and
// /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME].
func parsePath(path string) (group, namespace, resource, name string) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if parts[0] == "apis" && len(parts) > 2 {
		group, parts = parts[1], parts[3:]
	} else if len(parts) > 1 {
		parts = parts[2:]
	}
	if len(parts) > 2 && parts[0] == "namespaces" {
		namespace, parts = parts[1], parts[2:]
	}
	if len(parts) > 0 {
		resource = parts[0]
	}
	if len(parts) > 1 {
		name = parts[1]
	}
	return group, namespace, resource, name
}

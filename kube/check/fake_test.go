package check

import (
	"context"
	"errors"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fakeCluster serves check's reads from slices, as the API server would
// filter them.
type fakeCluster struct {
	pods        []corev1.Pod
	jobs        []batchv1.Job
	namespaces  []corev1.Namespace
	configs     []admissionregistrationv1.MutatingWebhookConfiguration
	deployments []appsv1.Deployment
	nodes       []corev1.Node
	bindings    []rbacv1.ClusterRoleBinding
	roles       []rbacv1.ClusterRole
	// jobLists records the namespaces whose Jobs were listed.
	jobLists []string
}

var _ cluster = (*fakeCluster)(nil)

func (f *fakeCluster) Pods(_ context.Context, namespace, selector string) ([]corev1.Pod, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, err
	}
	var pods []corev1.Pod
	for _, p := range f.pods {
		if (namespace == "" || p.Namespace == namespace) && sel.Matches(labels.Set(p.Labels)) {
			pods = append(pods, p)
		}
	}
	return pods, nil
}

func (f *fakeCluster) Jobs(_ context.Context, namespace string) ([]batchv1.Job, error) {
	f.jobLists = append(f.jobLists, namespace)
	var jobs []batchv1.Job
	for _, j := range f.jobs {
		if namespace == "" || j.Namespace == namespace {
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}

func (f *fakeCluster) Nodes(context.Context) ([]corev1.Node, error) {
	return slices.Clone(f.nodes), nil
}

func (f *fakeCluster) Namespaces(context.Context) ([]corev1.Namespace, error) {
	return slices.Clone(f.namespaces), nil
}

func (f *fakeCluster) MutatingWebhookConfigurations(context.Context) ([]admissionregistrationv1.MutatingWebhookConfiguration, error) {
	return slices.Clone(f.configs), nil
}

func (f *fakeCluster) Deployment(_ context.Context, namespace, name string) (*appsv1.Deployment, error) {
	for _, d := range f.deployments {
		if d.Namespace == namespace && d.Name == name {
			return &d, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, name)
}

// fakeProber answers by address; an address it does not know refuses.
type fakeProber map[string]probe

var _ prober = fakeProber{}

func (f fakeProber) Probe(_ context.Context, addr, _ string) probe {
	if r, ok := f[addr]; ok {
		return r
	}
	return probe{err: errors.New("dial tcp " + addr + ": connect: connection refused")}
}

func (f *fakeCluster) ClusterRoleBindings(context.Context) ([]rbacv1.ClusterRoleBinding, error) {
	return slices.Clone(f.bindings), nil
}

func (f *fakeCluster) ClusterRoles(context.Context) ([]rbacv1.ClusterRole, error) {
	return slices.Clone(f.roles), nil
}

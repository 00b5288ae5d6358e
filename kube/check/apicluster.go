package check

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionregistrationv1client "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	batchv1client "k8s.io/client-go/kubernetes/typed/batch/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/client-go/rest"
)

// APIClients are client-go's typed clients of the five API groups check
// reads; a kubernetes.Interface hands them out, and NewAPIClients makes
// them from a config alone.
type APIClients struct {
	Core      corev1client.CoreV1Interface
	Batch     batchv1client.BatchV1Interface
	Apps      appsv1client.AppsV1Interface
	Admission admissionregistrationv1client.AdmissionregistrationV1Interface
	RBAC      rbacv1client.RbacV1Interface
}

// NewAPIClients makes the typed clients for cfg.
func NewAPIClients(cfg *rest.Config) (APIClients, error) {
	var c APIClients
	var err error
	if c.Core, err = corev1client.NewForConfig(cfg); err != nil {
		return APIClients{}, err
	}
	if c.Batch, err = batchv1client.NewForConfig(cfg); err != nil {
		return APIClients{}, err
	}
	if c.Apps, err = appsv1client.NewForConfig(cfg); err != nil {
		return APIClients{}, err
	}
	if c.Admission, err = admissionregistrationv1client.NewForConfig(cfg); err != nil {
		return APIClients{}, err
	}
	if c.RBAC, err = rbacv1client.NewForConfig(cfg); err != nil {
		return APIClients{}, err
	}
	return c, nil
}

// APICluster reads the cluster through the API server: lists and one get,
// nothing else. Lists come in pages, as kubectl's do, so a large cluster
// is not one response held by the API server.
type APICluster struct{ clients APIClients }

var _ cluster = APICluster{}

func NewAPICluster(clients APIClients) APICluster { return APICluster{clients: clients} }

// listPage is the size of one page of a list.
const listPage = 500

func (a APICluster) Pods(ctx context.Context, namespace, selector string) ([]corev1.Pod, error) {
	return listAll(ctx, selector, a.clients.Core.Pods(namespace).List,
		func(l *corev1.PodList) ([]corev1.Pod, string) { return l.Items, l.Continue })
}

func (a APICluster) Jobs(ctx context.Context, namespace string) ([]batchv1.Job, error) {
	return listAll(ctx, "", a.clients.Batch.Jobs(namespace).List,
		func(l *batchv1.JobList) ([]batchv1.Job, string) { return l.Items, l.Continue })
}

func (a APICluster) Nodes(ctx context.Context) ([]corev1.Node, error) {
	return listAll(ctx, "", a.clients.Core.Nodes().List,
		func(l *corev1.NodeList) ([]corev1.Node, string) { return l.Items, l.Continue })
}

func (a APICluster) Namespaces(ctx context.Context) ([]corev1.Namespace, error) {
	return listAll(ctx, "", a.clients.Core.Namespaces().List,
		func(l *corev1.NamespaceList) ([]corev1.Namespace, string) { return l.Items, l.Continue })
}

func (a APICluster) MutatingWebhookConfigurations(ctx context.Context) ([]admissionregistrationv1.MutatingWebhookConfiguration, error) {
	return listAll(ctx, "", a.clients.Admission.MutatingWebhookConfigurations().List,
		func(l *admissionregistrationv1.MutatingWebhookConfigurationList) ([]admissionregistrationv1.MutatingWebhookConfiguration, string) {
			return l.Items, l.Continue
		})
}

func (a APICluster) Deployment(ctx context.Context, namespace, name string) (*appsv1.Deployment, error) {
	return a.clients.Apps.Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (a APICluster) ClusterRoleBindings(ctx context.Context) ([]rbacv1.ClusterRoleBinding, error) {
	return listAll(ctx, "", a.clients.RBAC.ClusterRoleBindings().List,
		func(l *rbacv1.ClusterRoleBindingList) ([]rbacv1.ClusterRoleBinding, string) {
			return l.Items, l.Continue
		})
}

func (a APICluster) ClusterRoles(ctx context.Context) ([]rbacv1.ClusterRole, error) {
	return listAll(ctx, "", a.clients.RBAC.ClusterRoles().List,
		func(l *rbacv1.ClusterRoleList) ([]rbacv1.ClusterRole, string) { return l.Items, l.Continue })
}

// listAll follows a list's pages to the end; items reads a page.
func listAll[L any, T any](ctx context.Context, selector string, list func(context.Context, metav1.ListOptions) (L, error),
	items func(L) ([]T, string)) ([]T, error) {
	var all []T
	opts := metav1.ListOptions{LabelSelector: selector, Limit: listPage}
	for {
		page, err := list(ctx, opts)
		if err != nil {
			return nil, err
		}
		got, next := items(page)
		all = append(all, got...)
		if next == "" {
			return all, nil
		}
		opts.Continue = next
	}
}

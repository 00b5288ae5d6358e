package check

import (
	"context"
	"fmt"
	"slices"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Options are check's flags.
type Options struct {
	// Namespace limits the held-pods check to one namespace; empty: every
	// namespace. The installation is cluster-wide and always checked.
	Namespace string
	// StuckAfter is how long a pod may run on after its main containers
	// ended before it counts as held.
	StuckAfter time.Duration
}

// cluster is what check reads, and all it may do: list and get.
type cluster interface {
	// Pods lists the pods of namespace (empty: all) matching a label
	// selector (empty: all).
	Pods(ctx context.Context, namespace, selector string) ([]corev1.Pod, error)
	Jobs(ctx context.Context, namespace string) ([]batchv1.Job, error)
	Namespaces(ctx context.Context) ([]corev1.Namespace, error)
	MutatingWebhookConfigurations(ctx context.Context) ([]admissionregistrationv1.MutatingWebhookConfiguration, error)
	// Deployment returns an error that apierrors.IsNotFound knows when
	// there is none.
	Deployment(ctx context.Context, namespace, name string) (*appsv1.Deployment, error)
	Nodes(ctx context.Context) ([]corev1.Node, error)
	ClusterRoleBindings(ctx context.Context) ([]rbacv1.ClusterRoleBinding, error)
	ClusterRoles(ctx context.Context) ([]rbacv1.ClusterRole, error)
}

// Run checks the cluster that clients reach, as of now.
func Run(ctx context.Context, clients APIClients, opts Options) (Report, error) {
	c := checker{cluster: NewAPICluster(clients), prober: tlsProber{timeout: probeTimeout}, now: time.Now()}
	r, err := c.run(ctx, opts)
	if apierrors.IsForbidden(err) {
		err = fmt.Errorf("%w; check reads with the ClusterRole tandem-check of examples/webhook/check-rbac.yaml", err)
	}
	return r, err
}

// checker holds the seams of one run: the cluster, the endpoint prober and
// the time the run treats as now.
type checker struct {
	cluster cluster
	prober  prober
	now     time.Time
}

func (c checker) run(ctx context.Context, opts Options) (Report, error) {
	namespaces, err := c.cluster.Namespaces(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("list namespaces: %w", err)
	}
	// A namespace mistyped must not read as one where nothing is wrong.
	if opts.Namespace != "" && !slices.ContainsFunc(namespaces, func(ns corev1.Namespace) bool { return ns.Name == opts.Namespace }) {
		return Report{}, NoSuchNamespace{opts.Namespace}
	}
	pods, err := c.cluster.Pods(ctx, opts.Namespace, "")
	if err != nil {
		return Report{}, fmt.Errorf("list pods: %w", err)
	}
	jobs, err := c.cluster.Jobs(ctx, opts.Namespace)
	if err != nil {
		return Report{}, fmt.Errorf("list jobs: %w", err)
	}
	configs, err := c.cluster.MutatingWebhookConfigurations(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("list mutatingwebhookconfigurations: %w", err)
	}
	nodes, err := c.cluster.Nodes(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("list nodes: %w", err)
	}
	hooks := tandemWebhooks(configs, namespaces)
	findings := c.heldPods(pods, jobs, namespaces, opts.StuckAfter)
	findings = append(findings, podFailurePolicies(jobs)...)
	findings = append(findings, uninjectedPods(ctx, pods, jobs, hooks)...)
	findings = append(findings, policySkipped(pods, cronJobsOfJobs(jobs))...)
	findings = append(findings, modeFit(pods, nodes)...)
	install, err := c.installation(ctx, hooks, namespaces)
	if err != nil {
		return Report{}, err
	}
	return Report{Findings: append(findings, install...), Pods: len(pods), Webhooks: len(hooks)}, nil
}

// NoSuchNamespace is Options.Namespace naming no namespace of the cluster.
type NoSuchNamespace struct{ Namespace string }

func (e NoSuchNamespace) Error() string {
	return fmt.Sprintf("namespace %q does not exist in this cluster (kubectl get namespaces lists them)", e.Namespace)
}

package apiclient

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionregistrationv1client "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tandem-sh/tandem/kube/webhook/admission"
)

// Clients are the typed clients of the two API groups the webhook uses:
// core (namespaces, service accounts, pull secrets, its bootstrap Secret)
// and admissionregistration (the caBundle of its configuration). Typed
// clients, not client-go's Clientset: the Clientset's fifty-odd other
// groups cost compile time and binary size and are never called.
type Clients struct {
	Core      corev1client.CoreV1Interface
	Admission admissionregistrationv1client.AdmissionregistrationV1Interface
	// API asks whether the API server answers, for /readyz.
	API APIReadiness
}

// NewClients connects to the API server: with kubeconfig (a path, or a
// list as KUBECONFIG takes) when given, else in-cluster, else kubectl's
// defaults.
func NewClients(kubeconfig string) (Clients, error) {
	cfg, err := RESTConfig(kubeconfig)
	if err != nil {
		return Clients{}, err
	}
	cfg.UserAgent = "tandemctl-webhook"
	// Each admission reads up to three objects (the namespace, the service
	// account, its pull secrets), and admissions come in bursts (a Job of
	// many pods). client-go's own limiter (5/s by default) would make each
	// admission wait for a token: at 50/s it was measured adding 50 ms per
	// admission at 20 admissions a second. The API server's own priority
	// and fairness protects it; this only bounds a runaway.
	cfg.QPS, cfg.Burst = 500, 1000
	var c Clients
	if c.Core, err = corev1client.NewForConfig(cfg); err != nil {
		return Clients{}, err
	}
	if c.Admission, err = admissionregistrationv1client.NewForConfig(cfg); err != nil {
		return Clients{}, err
	}
	if c.API, err = NewAPIReadiness(cfg); err != nil {
		return Clients{}, err
	}
	return c, nil
}

// homeKubeconfig is kubectl's default file (a variable for the tests).
var homeKubeconfig = clientcmd.RecommendedHomeFile

// RESTConfig finds the API server as NewClients does, for a caller that
// sets its own User-Agent and limits (tandemctl check).
// The sources, in this order: the kubeconfig given (--kubeconfig,
// TANDEMCTL_KUBECONFIG or KUBECONFIG), else the pod's service account
// (in-cluster), else kubectl's default file, ~/.kube/config.
func RESTConfig(kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.Precedence = []string{homeKubeconfig}
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %q: %w", kubeconfig, err)
		}
		return cfg, nil
	}
	cfg, inClusterErr := rest.InClusterConfig()
	if inClusterErr == nil {
		return cfg, nil
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	switch {
	case err == nil:
		return cfg, nil
	case clientcmd.IsEmptyConfig(err):
		return nil, fmt.Errorf("no API server to talk to: no --kubeconfig, TANDEMCTL_KUBECONFIG or KUBECONFIG; not in a cluster (%v); no %s: give --kubeconfig FILE",
			inClusterErr, homeKubeconfig)
	default:
		return nil, fmt.Errorf("not in a cluster (%v); kubeconfig %s: %w", inClusterErr, homeKubeconfig, err)
	}
}

// APINamespaces reads a namespace's labels from the API server. It asks
// each time: a namespace labelled a moment ago must count at once, and the
// API server's own namespaceSelector has already sent only selected ones.
type APINamespaces struct {
	Namespaces corev1client.NamespacesGetter
}

var _ admission.NamespaceLabels = APINamespaces{}

func (n APINamespaces) Labels(ctx context.Context, namespace string) (map[string]string, error) {
	ns, err := n.Namespaces.Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return ns.Labels, nil
}

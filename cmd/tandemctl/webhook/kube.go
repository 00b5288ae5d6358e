package webhook

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/authn/k8schain"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tandem-sh/tandem/cmd/tandemctl/webhook/admission"
)

// Client connects to the API server: with kubeconfig (a path, or a list as
// KUBECONFIG takes) when given, else in-cluster, else kubectl's defaults.
func Client(kubeconfig string) (kubernetes.Interface, error) {
	cfg, err := RESTConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "tandemctl-webhook"
	// Each admission reads up to three objects (the namespace, the service
	// account, its pull secrets), and admissions come in bursts (a Job of
	// many pods). client-go's own limiter (5/s by default) would make each
	// admission wait for a token: at 50/s it was measured adding 50 ms per
	// admission at 20 admissions a second. The API server's own priority
	// and fairness protects it; this only bounds a runaway.
	cfg.QPS, cfg.Burst = 500, 1000
	return kubernetes.NewForConfig(cfg)
}

// RESTConfig finds the API server as Client does, for a caller that sets
// its own User-Agent and limits (tandemctl check).
func RESTConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		if cfg, err := rest.InClusterConfig(); err == nil {
			return cfg, nil
		}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %q (not in a cluster either): %w", kubeconfig, err)
	}
	return cfg, nil
}

// APINamespaces reads a namespace's labels from the API server. It asks
// each time: a namespace labelled a moment ago must count at once, and the
// API server's own namespaceSelector has already sent only selected ones.
type APINamespaces struct{ Client kubernetes.Interface }

var _ admission.NamespaceLabels = APINamespaces{}

func (n APINamespaces) Labels(ctx context.Context, namespace string) (map[string]string, error) {
	ns, err := n.Client.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return ns.Labels, nil
}

// PodKeychains makes a pod's keychain with go-containerregistry's
// k8schain: the pod's imagePullSecrets and its service account's, then the
// node-level helpers (cloud registries) as a kubelet would.
type PodKeychains struct{ Client kubernetes.Interface }

var _ admission.KeychainSource = PodKeychains{}

func (k PodKeychains) Keychain(ctx context.Context, pod admission.PodCredentials) (authn.Keychain, error) {
	return k8schain.New(ctx, k.Client, k8schain.Options{
		Namespace:          pod.Namespace,
		ServiceAccountName: pod.ServiceAccount,
		ImagePullSecrets:   pod.PullSecrets,
	})
}

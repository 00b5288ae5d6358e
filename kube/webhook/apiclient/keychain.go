package apiclient

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	kauth "github.com/google/go-containerregistry/pkg/authn/kubernetes"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/tandem-sh/tandem/kube/webhook/admission"
)

// PodKeychains makes a pod's keychain as the kubelet would pull its
// images: the pod's imagePullSecrets, then its service account's (read
// here, matched by go-containerregistry's pkg/authn/kubernetes), then the
// docker config of the webhook's own home. The cloud registries' node
// helpers (ECR, GCR, ACR) are left out: k8schain brought them with 27
// modules of cloud SDKs; a private registry there takes a pull secret.
type PodKeychains struct {
	Core interface {
		corev1client.SecretsGetter
		corev1client.ServiceAccountsGetter
	}
}

var _ admission.KeychainSource = PodKeychains{}

func (k PodKeychains) Keychain(ctx context.Context, pod admission.PodCredentials) (authn.Keychain, error) {
	namespace, account := pod.Namespace, pod.ServiceAccount
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	if account == "" {
		account = "default"
	}
	names := append([]string{}, pod.PullSecrets...)
	sa, err := k.Core.ServiceAccounts(namespace).Get(ctx, account, metav1.GetOptions{})
	switch {
	case err == nil:
		for _, ref := range sa.ImagePullSecrets {
			names = append(names, ref.Name)
		}
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("service account %s/%s: %w", namespace, account, err)
	}
	secrets, err := k.pullSecrets(ctx, namespace, names)
	if err != nil {
		return nil, err
	}
	fromSecrets, err := kauth.NewFromPullSecrets(ctx, secrets)
	if err != nil {
		return nil, err
	}
	return authn.NewMultiKeychain(fromSecrets, authn.DefaultKeychain), nil
}

// pullSecrets reads the named Secrets; a missing one is skipped, as the
// kubelet skips it.
func (k PodKeychains) pullSecrets(ctx context.Context, namespace string, names []string) ([]corev1.Secret, error) {
	var secrets []corev1.Secret
	for _, name := range names {
		s, err := k.Core.Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("pull secret %s/%s: %w", namespace, name, err)
		}
		secrets = append(secrets, *s)
	}
	return secrets, nil
}

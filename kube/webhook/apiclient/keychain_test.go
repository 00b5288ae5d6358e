package apiclient

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-sh/tandem/kube/webhook/admission"
)

// pullSecret is a kubernetes.io/dockerconfigjson Secret for one registry.
func pullSecret(t *testing.T, secretName, registry, user string) *corev1.Secret {
	t.Helper()
	config, err := json.Marshal(map[string]any{"auths": map[string]any{registry: map[string]string{"username": user, "password": "pw"}}})
	if err != nil {
		t.Fatal(err)
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: "jobs"},
		Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{corev1.DockerConfigJsonKey: config}}
}

// usernameFor resolves registry through kc: "" when kc is anonymous there.
func usernameFor(t *testing.T, kc authn.Keychain, registry string) string {
	t.Helper()
	reg, err := name.NewRegistry(registry)
	if err != nil {
		t.Fatal(err)
	}
	auth, err := kc.Resolve(reg)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := auth.Authorization()
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Username
}

// The pod's own pull secrets and its service account's both count, a
// missing one is skipped as the kubelet skips it, and another pod's
// service account lends nothing.
func TestPodKeychains(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no docker config of this machine's
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder", Namespace: "jobs"},
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: "from-account"}, {Name: "gone"}}}
	core, _ := fakeAPI(sa, pullSecret(t, "from-pod", "pod.example", "pod-user"),
		pullSecret(t, "from-account", "account.example", "account-user"))
	ctx := context.Background()
	kc, err := PodKeychains{Core: core}.Keychain(ctx, admission.PodCredentials{Namespace: "jobs", ServiceAccount: "builder",
		PullSecrets: []string{"from-pod", "missing"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := usernameFor(t, kc, "pod.example"); got != "pod-user" {
		t.Errorf("pod.example: user %q; want pod-user (the pod's imagePullSecrets)", got)
	}
	if got := usernameFor(t, kc, "account.example"); got != "account-user" {
		t.Errorf("account.example: user %q; want account-user (the service account's)", got)
	}
	if got := usernameFor(t, kc, "other.example"); got != "" {
		t.Errorf("other.example: user %q; want anonymous", got)
	}

	kc, err = PodKeychains{Core: core}.Keychain(ctx, admission.PodCredentials{Namespace: "jobs", ServiceAccount: "nobody"})
	if err != nil {
		t.Fatalf("a service account that does not exist: %v; want it skipped", err)
	}
	if got := usernameFor(t, kc, "account.example"); got != "" {
		t.Errorf("account.example for another account: user %q; want anonymous", got)
	}
}

package main

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/tandem-sh/tandem/kube/webhook/admission"
	"github.com/tandem-sh/tandem/kube/webhook/apiclient"
)

// TestWebhookReadsPullSecretsOnlyWhenTold: without --read-pull-secrets the
// webhook has no keychain source (lookups anonymous) and so reads no
// Secret; with it, a pod's pull secret is read from the API.
func TestWebhookReadsPullSecretsOnlyWhenTold(t *testing.T) {
	t.Parallel()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "regcred", Namespace: "jobs"}, Type: corev1.SecretTypeDockerConfigJson,
		Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(`{"auths":{}}`)}}
	pod := admission.PodCredentials{Namespace: "jobs", ServiceAccount: "default", PullSecrets: []string{"regcred"}}
	for _, read := range []bool{false, true} {
		api := fake.NewClientset(secret)
		source := podKeychains(read, apiclient.Clients{Core: api.CoreV1()})
		if source != nil {
			if _, err := source.Keychain(context.Background(), pod); err != nil {
				t.Fatal(err)
			}
		}
		var secretReads int
		for _, a := range api.Actions() {
			if a.GetResource().Resource == "secrets" {
				secretReads++
			}
		}
		if read != (secretReads > 0) {
			t.Errorf("--read-pull-secrets=%v: %d Secret reads", read, secretReads)
		}
		t.Logf("--read-pull-secrets=%v: %d Secret reads", read, secretReads)
	}
}

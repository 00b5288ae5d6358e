package apiclient

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/tandem-sh/tandem/kube/webhook"
	"github.com/tandem-sh/tandem/kube/webhook/selfsigned"
)

func bootstrapObjects() (*corev1.Secret, *admissionregistrationv1.MutatingWebhookConfiguration) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tandem-webhook-tls", Namespace: "tandem-system"}}
	svc := func(name string) *admissionregistrationv1.ServiceReference {
		return &admissionregistrationv1.ServiceReference{Name: name, Namespace: "tandem-system"}
	}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "tandem"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{
			{Name: "inject.tandem.sh", ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: svc("tandem-webhook")}},
			{Name: "someone.else", ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: svc("other")}},
		},
	}
	return secret, cfg
}

func TestBootstrap(t *testing.T) {
	secret, cfg := bootstrapObjects()
	core, admission := fakeAPI(secret, cfg)
	dir := t.TempDir()
	b := Bootstrap{Secrets: core, Webhooks: admission, Namespace: "tandem-system", Secret: "tandem-webhook-tls", Service: "tandem-webhook",
		WebhookConfig: "tandem", CertDir: dir, Logger: zerolog.Nop()}
	ctx := context.Background()
	if err := b.Run(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := core.Secrets("tandem-system").Get(ctx, "tandem-webhook-tls", metav1.GetOptions{})
	served, _ := os.ReadFile(filepath.Join(dir, webhook.CertFile))
	if len(got.Data["ca.crt"]) == 0 || !bytes.Equal(got.Data["tls.crt"], served) {
		t.Fatalf("secret %v and the served certificate differ", got.Data)
	}
	if err := webhook.NewCertReloader(dir).Ready(); err != nil {
		t.Errorf("the written pair does not load: %v", err)
	}
	mwc, _ := admission.MutatingWebhookConfigurations().Get(ctx, "tandem", metav1.GetOptions{})
	if !bytes.Equal(mwc.Webhooks[0].ClientConfig.CABundle, got.Data["ca.crt"]) || mwc.Webhooks[1].ClientConfig.CABundle != nil {
		t.Errorf("caBundles %q, %q; want the CA on ours only", mwc.Webhooks[0].ClientConfig.CABundle, mwc.Webhooks[1].ClientConfig.CABundle)
	}

	// Another replica, or a restart: the same certificate, not a new one.
	b.CertDir = t.TempDir()
	if err := b.Run(ctx); err != nil {
		t.Fatal(err)
	}
	again, _ := core.Secrets("tandem-system").Get(ctx, "tandem-webhook-tls", metav1.GetOptions{})
	if !bytes.Equal(again.Data["tls.crt"], got.Data["tls.crt"]) {
		t.Error("a second start replaced a certificate that still serves")
	}

	// Close to expiry, a start makes a new one.
	b.Now = func() time.Time { return time.Now().Add(selfsigned.Lifetime - selfsigned.RenewBefore/2) }
	if err := b.Run(ctx); err != nil {
		t.Fatal(err)
	}
	renewed, _ := core.Secrets("tandem-system").Get(ctx, "tandem-webhook-tls", metav1.GetOptions{})
	if bytes.Equal(renewed.Data["tls.crt"], got.Data["tls.crt"]) {
		t.Error("a certificate about to expire was kept")
	}
	// Replicas still serving the old certificate stay trusted.
	mwc, _ = admission.MutatingWebhookConfigurations().Get(ctx, "tandem", metav1.GetOptions{})
	want := append(append([]byte{}, renewed.Data["ca.crt"]...), got.Data["ca.crt"]...)
	if !bytes.Equal(mwc.Webhooks[0].ClientConfig.CABundle, want) {
		t.Errorf("caBundle after a renewal:\n%s\nwant the new CA, then the old one", mwc.Webhooks[0].ClientConfig.CABundle)
	}
}

func TestBootstrapErrors(t *testing.T) {
	secret, cfg := bootstrapObjects()
	cfg.Webhooks = cfg.Webhooks[1:]
	b := Bootstrap{Namespace: "tandem-system", Secret: "tandem-webhook-tls", Service: "tandem-webhook",
		WebhookConfig: "tandem", Logger: zerolog.Nop()}
	for _, tt := range []struct {
		objects []runtime.Object
		want    string
	}{
		{[]runtime.Object{cfg}, `secret tandem-system/tandem-webhook-tls`},
		{[]runtime.Object{secret, cfg}, "no webhook in it calls service tandem-system/tandem-webhook"},
	} {
		b.Secrets, b.Webhooks = fakeAPI(tt.objects...)
		b.CertDir = t.TempDir()
		if err := b.Run(context.Background()); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v; want one with %q", err, tt.want)
		}
	}
}

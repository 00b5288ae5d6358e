package apiclient

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionregistrationv1client "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/util/retry"

	"github.com/tandem-sh/tandem/kube/webhook"
	"github.com/tandem-sh/tandem/kube/webhook/selfsigned"
)

// caFile is the CA's key in the bootstrap Secret, as cert-manager names it.
const caFile = "ca.crt"

// Bootstrap makes the webhook's serving certificate without cert-manager:
// at start, every replica reads the Secret; the first to find it empty (or
// the bundle expiring) writes a new CA and certificate into it, guarded by
// its resourceVersion so that replicas starting together agree on one.
// Then the certificate goes into CertDir, where the CertReloader serves it,
// and the CA into the caBundle of every webhook of the configuration that
// calls this Service.
type Bootstrap struct {
	Secrets           corev1client.SecretsGetter
	Webhooks          admissionregistrationv1client.MutatingWebhookConfigurationsGetter
	Namespace, Secret string
	Service           string
	// WebhookConfig is the MutatingWebhookConfiguration's name.
	WebhookConfig string
	CertDir       string
	Logger        zerolog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Run does it once.
func (b Bootstrap) Run(ctx context.Context) error {
	if b.Now == nil {
		b.Now = time.Now
	}
	bundle, previousCA, err := b.ensureSecret(ctx)
	if err != nil {
		return err
	}
	if err := webhook.WriteAtomic(b.CertDir, webhook.CertFile, bundle.Cert); err != nil {
		return err
	}
	if err := webhook.WriteAtomic(b.CertDir, webhook.KeyFile, bundle.Key); err != nil {
		return err
	}
	// A replica started before a renewal still serves the previous
	// certificate until it restarts: its CA stays trusted beside the new one.
	trusted := bundle.CA
	if len(previousCA) > 0 && !bytes.Equal(previousCA, bundle.CA) {
		trusted = append(append([]byte{}, bundle.CA...), previousCA...)
	}
	return b.setCABundle(ctx, trusted)
}

// ensureSecret returns the bundle in the Secret, written first if the one
// there does not serve, and the CA it replaced (nil if none).
func (b Bootstrap) ensureSecret(ctx context.Context) (bundle selfsigned.Bundle, previousCA []byte, err error) {
	names := selfsigned.ServiceNames(b.Service, b.Namespace)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		secret, err := b.Secrets.Secrets(b.Namespace).Get(ctx, b.Secret, metav1.GetOptions{})
		if err != nil {
			return err
		}
		have := selfsigned.Bundle{CA: secret.Data[caFile], Cert: secret.Data[corev1.TLSCertKey], Key: secret.Data[corev1.TLSPrivateKeyKey]}
		why := have.Usable(names, b.Now())
		if why == nil {
			bundle, previousCA = have, nil
			return nil
		}
		previousCA = have.CA
		if bundle, err = selfsigned.NewBundle(names, b.Now()); err != nil {
			return err
		}
		secret.Data = map[string][]byte{caFile: bundle.CA, corev1.TLSCertKey: bundle.Cert, corev1.TLSPrivateKeyKey: bundle.Key}
		_, err = b.Secrets.Secrets(b.Namespace).Update(ctx, secret, metav1.UpdateOptions{})
		if err == nil {
			b.Logger.Info().Str("event", "certificate-created").Str("secret", b.Namespace+"/"+b.Secret).
				Str("replaced", why.Error()).Msg("serving certificate created")
		}
		return err // a conflict: another replica wrote first; read its bundle
	})
	if err != nil {
		return selfsigned.Bundle{}, nil, fmt.Errorf("bootstrap the serving certificate in secret %s/%s: %w", b.Namespace, b.Secret, err)
	}
	return bundle, previousCA, nil
}

// setCABundle puts ca into each webhook of the configuration that calls
// this Service.
func (b Bootstrap) setCABundle(ctx context.Context, ca []byte) error {
	api := b.Webhooks.MutatingWebhookConfigurations()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cfg, err := api.Get(ctx, b.WebhookConfig, metav1.GetOptions{})
		if err != nil {
			return err
		}
		changed, ours := false, 0
		for i := range cfg.Webhooks {
			svc := cfg.Webhooks[i].ClientConfig.Service
			if svc == nil || svc.Name != b.Service || svc.Namespace != b.Namespace {
				continue
			}
			ours++
			if !bytes.Equal(cfg.Webhooks[i].ClientConfig.CABundle, ca) {
				cfg.Webhooks[i].ClientConfig.CABundle, changed = ca, true
			}
		}
		if ours == 0 {
			return fmt.Errorf("no webhook in it calls service %s/%s", b.Namespace, b.Service)
		}
		if !changed {
			return nil
		}
		_, err = api.Update(ctx, cfg, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("set the caBundle of mutatingwebhookconfiguration %s: %w", b.WebhookConfig, err)
	}
	return nil
}

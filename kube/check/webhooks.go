package check

import (
	"context"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// tandemWebhook is one webhook of tandem in a MutatingWebhookConfiguration.
type tandemWebhook struct {
	config string
	hook   admissionregistrationv1.MutatingWebhook
	// selected are the namespaces its namespaceSelector selects now.
	selected []string
}

// isTandem: tandem's webhooks are named in its domain (inject.tandem.sh).
func isTandem(name string) bool {
	return name == "tandem.sh" || strings.HasSuffix(name, ".tandem.sh")
}

// tandemWebhooks are the webhooks of tandem in configs, with the
// namespaces each selects now.
func tandemWebhooks(configs []admissionregistrationv1.MutatingWebhookConfiguration, namespaces []corev1.Namespace) []tandemWebhook {
	var hooks []tandemWebhook
	for _, cfg := range configs {
		for _, hook := range cfg.Webhooks {
			if isTandem(hook.Name) {
				hooks = append(hooks, tandemWebhook{config: cfg.Name, hook: hook, selected: selectedBy(hook.NamespaceSelector, namespaces)})
			}
		}
	}
	return hooks
}

// installation checks every webhook of tandem, and that some namespace is
// labelled for injection when there is one.
func (c checker) installation(ctx context.Context, hooks []tandemWebhook, namespaces []corev1.Namespace) ([]Finding, error) {
	var findings []Finding
	for _, w := range hooks {
		found, err := c.checkWebhook(ctx, w)
		if err != nil {
			return nil, fmt.Errorf("webhook %s: %w", w.name(), err)
		}
		findings = append(findings, found...)
	}
	if len(hooks) > 0 {
		findings = append(findings, labelledNamespaces(namespaces)...)
	}
	return findings, nil
}

// checkWebhook finds where the webhook answers (checking the Deployment on
// the way for a service), then asks each address for /readyz and its
// certificate.
func (c checker) checkWebhook(ctx context.Context, w tandemWebhook) ([]Finding, error) {
	var targets []target
	var findings []Finding
	switch cc := w.hook.ClientConfig; {
	case cc.Service != nil:
		var err error
		if targets, findings, err = c.serviceTargets(ctx, w); err != nil {
			return nil, err
		}
		findings = append(findings, w.ownNamespaceSelected()...)
	case cc.URL != nil:
		t, err := urlTarget(*cc.URL)
		if err != nil {
			return []Finding{w.finding(checkConfig, Error, fmt.Sprintf("clientConfig.url: %v; %s", err, w.consequence()), "fix the url")}, nil
		}
		targets = []target{t}
	default:
		return []Finding{w.finding(checkConfig, Error, "clientConfig has neither service nor url; "+w.consequence(), "set clientConfig.service as examples/webhook/ does")}, nil
	}
	if len(w.hook.ClientConfig.CABundle) > 0 && !hasCertificate(w.hook.ClientConfig.CABundle) {
		findings = append(findings, w.finding(checkCertificate, Error, "caBundle holds no PEM certificate; "+w.consequence(),
			"set caBundle to the CA of the webhook's certificate"))
	}
	return append(findings, c.probeTargets(ctx, w, targets)...), nil
}

// name is how findings name a webhook: configuration/webhook.
func (w tandemWebhook) name() string { return w.config + "/" + w.hook.Name }

func (w tandemWebhook) finding(check string, severity Severity, message, fix string) Finding {
	return Finding{Check: check, Severity: severity, Name: w.name(), Message: message, Fix: fix}
}

// fails: a webhook that cannot be called refuses the pods it was to admit.
// An unset failurePolicy is Fail in admissionregistration/v1.
func (w tandemWebhook) fails() bool {
	return w.hook.FailurePolicy == nil || *w.hook.FailurePolicy == admissionregistrationv1.Fail
}

// consequence says what a webhook that cannot be called does to the
// namespaces it selects.
func (w tandemWebhook) consequence() string {
	if w.fails() {
		return fmt.Sprintf("with failurePolicy Fail, no pod can be created in the namespaces it selects (%s)", names(w.selected))
	}
	return fmt.Sprintf("with failurePolicy Ignore, pods of the namespaces it selects (%s) are created without tandem, and their Jobs can be held by their sidecars",
		names(w.selected))
}

// ownNamespaceSelected: a webhook that must admit its own pods cannot
// come back once every replica is gone.
func (w tandemWebhook) ownNamespaceSelected() []Finding {
	ns := w.hook.ClientConfig.Service.Namespace
	for _, s := range w.selected {
		if s == ns && w.fails() {
			return []Finding{w.finding(checkConfig, Error,
				fmt.Sprintf("its namespaceSelector selects its own namespace %s: with failurePolicy Fail, once no replica answers none can be created again", ns),
				fmt.Sprintf("take %s out of the selector: kubectl label namespace %s tandem.sh/inject-", ns, ns))}
		}
	}
	return nil
}

// selectedBy lists the namespaces a namespaceSelector matches; none set
// matches every namespace.
func selectedBy(selector *metav1.LabelSelector, namespaces []corev1.Namespace) []string {
	s := labels.Everything()
	if selector != nil {
		var err error
		if s, err = metav1.LabelSelectorAsSelector(selector); err != nil {
			return nil // the API server accepts no such configuration
		}
	}
	var selected []string
	for _, ns := range namespaces {
		if s.Matches(labels.Set(ns.Labels)) {
			selected = append(selected, ns.Name)
		}
	}
	return selected
}

// names lists a few names and counts the rest.
func names(list []string) string {
	const shown = 5
	switch {
	case len(list) == 0:
		return "none at the moment"
	case len(list) > shown:
		return fmt.Sprintf("%s and %d more", strings.Join(list[:shown], ", "), len(list)-shown)
	}
	return strings.Join(list, ", ")
}

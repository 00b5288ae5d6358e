package check

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tandem-sh/tandem/kube/webhook"
)

// probeTimeout bounds one /readyz; the API server allows a webhook call
// its timeoutSeconds, 10 by default.
const probeTimeout = 5 * time.Second

// prober asks https://addr/readyz, presenting serverName, and keeps the
// certificates the server presented, whether they verify or not.
type prober interface {
	Probe(ctx context.Context, addr, serverName string) probe
}

type probe struct {
	// chain as presented; empty when no handshake completed.
	chain []*x509.Certificate
	// status and body of /readyz; status 0 when none came.
	status int
	body   string
	// err: the dial, the handshake or the request failed.
	err error
}

func (p probe) answered() bool { return p.err == nil && p.status == http.StatusOK }

// probeTargets asks every target at once, then says which do not answer
// and what is wrong with the certificates they serve.
func (c checker) probeTargets(ctx context.Context, w tandemWebhook, targets []target) []Finding {
	results := make([]probe, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Go(func() { results[i] = c.prober.Probe(ctx, t.addr, t.serverName) })
	}
	wg.Wait()
	return append(readyz(w, targets, results), certificates(w, targets, results, c.now)...)
}

// readyz reports the targets that do not answer. A pod out of reach that
// the kubelet finds ready is out of check's sight, not down. Those that
// are down break admissions only when no other answers.
func readyz(w tandemWebhook, targets []target, results []probe) []Finding {
	var findings, down []Finding
	// anyServes: some target answers, or may (ready, out of sight).
	anyServes := false
	for i, t := range targets {
		r := results[i]
		f := Finding{Check: checkEndpoint, Severity: Warning, Name: w.name()}
		if t.pod != "" {
			f.Namespace, f.Name = w.hook.ClientConfig.Service.Namespace, t.pod
		}
		switch {
		case r.answered():
			anyServes = true
		case r.err != nil && t.ready:
			anyServes = true
			f.Message = fmt.Sprintf("cannot reach %s from here (%v); the kubelet finds it ready, so its certificate went unchecked", t.where(), r.err)
			f.Fix = "run tandemctl check where pod IPs route: on a node, or in a pod with the ClusterRole tandem-check"
			findings = append(findings, f)
		case r.err != nil:
			f.Message, f.Fix = fmt.Sprintf("%s does not answer /readyz: %v", t.where(), r.err), downFix(w, t)
			down = append(down, f)
		default:
			f.Message = fmt.Sprintf("%s answers /readyz with %d %s", t.where(), r.status, strings.ReplaceAll(r.body, "\n", "; "))
			f.Fix = downFix(w, t)
			down = append(down, f)
		}
	}
	for _, f := range down {
		if !anyServes {
			f.Severity, f.Message = Error, f.Message+"; "+w.consequence()
		}
		findings = append(findings, f)
	}
	return findings
}

func downFix(w tandemWebhook, t target) string {
	if t.pod == "" {
		return "check the server behind " + *w.hook.ClientConfig.URL
	}
	ns := w.hook.ClientConfig.Service.Namespace
	return fmt.Sprintf("kubectl -n %s describe pod %s; kubectl -n %s logs %s", ns, t.pod, ns, t.pod)
}

// certificates checks each distinct certificate served, once, against the
// configuration's caBundle.
func certificates(w tandemWebhook, targets []target, results []probe, now time.Time) []Finding {
	var order []string
	servedBy := map[string][]string{}
	chains := map[string][]*x509.Certificate{}
	for i, r := range results {
		// A webhook without its certificate serves a placeholder, and says
		// why in /readyz, which readyz reports.
		if len(r.chain) == 0 || r.chain[0].Subject.CommonName == webhook.PlaceholderName {
			continue
		}
		key := string(r.chain[0].Raw)
		if _, seen := chains[key]; !seen {
			order, chains[key] = append(order, key), r.chain
		}
		servedBy[key] = append(servedBy[key], targets[i].where())
	}
	var findings []Finding
	for _, key := range order {
		problem, failsNow := certProblem(chains[key], w.hook.ClientConfig.CABundle, targets[0].serverName, now)
		if problem == "" {
			continue
		}
		message := fmt.Sprintf("the certificate served by %s %s", strings.Join(servedBy[key], ", "), problem)
		if failsNow {
			message += "; " + w.consequence()
		}
		findings = append(findings, w.finding(checkCertificate, Error, message, certificateFix(w, failsNow)))
	}
	return findings
}

func certificateFix(w tandemWebhook, failsNow bool) string {
	svc := w.hook.ClientConfig.Service
	switch {
	case svc == nil && failsNow:
		return "set caBundle to the CA that signed the certificate of " + *w.hook.ClientConfig.URL
	case svc == nil:
		return "renew the certificate of " + *w.hook.ClientConfig.URL
	}
	return fmt.Sprintf("kubectl -n %s rollout restart deployment %s: at its start the webhook makes a new certificate when it expires within 90 days, and sets caBundle to its CA; with cert-manager, look at its Certificate and the cainjector",
		svc.Namespace, svc.Name)
}

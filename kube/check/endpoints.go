package check

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// target is one address where a webhook answers.
type target struct {
	// pod behind the address; empty for a url.
	pod string
	// addr is dialled; serverName is the name the API server verifies the
	// certificate for.
	addr, serverName string
	// ready: the kubelet's own /readyz probe passes (pods only).
	ready bool
}

// where names a target in messages.
func (t target) where() string {
	if t.pod != "" {
		return fmt.Sprintf("pod %s at %s", t.pod, t.addr)
	}
	return t.addr
}

// serviceTargets reads the Deployment behind a service client config and
// returns its running pods' addresses. The API server's service proxy
// would need a right beyond reading (services/proxy), and a ClusterIP
// routes only where kube-proxy runs; pod IPs route from any node and pod,
// and each replica is checked on its own. The Deployment is the one named
// as the Service, as examples/webhook/ installs it: with list pods and get
// deployments only, check cannot read the Service's selector.
func (c checker) serviceTargets(ctx context.Context, w tandemWebhook) ([]target, []Finding, error) {
	svc := w.hook.ClientConfig.Service
	dep, err := c.cluster.Deployment(ctx, svc.Namespace, svc.Name)
	if apierrors.IsNotFound(err) {
		return nil, []Finding{{Check: checkReplicas, Severity: Warning, Namespace: svc.Namespace, Name: svc.Name,
			Message: fmt.Sprintf("no Deployment %s behind Service %s: check looks for the Deployment named as the Service, so its replicas and endpoint went unchecked", svc.Name, svc.Name),
			Fix:     "install the webhook as examples/webhook/ does, or check the Deployment by hand: kubectl -n " + svc.Namespace + " get deployments"}}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("get deployment %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	findings := replicas(w, dep)
	beyond, err := c.webhookRBAC(ctx, dep)
	if err != nil {
		return nil, nil, err
	}
	findings = append(findings, beyond...)
	selector, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil {
		return nil, nil, fmt.Errorf("deployment %s/%s selector: %w", svc.Namespace, svc.Name, err)
	}
	pods, err := c.cluster.Pods(ctx, svc.Namespace, selector.String())
	if err != nil {
		return nil, nil, fmt.Errorf("list pods of deployment %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	port := servicePort(w)
	podPort, ok := targetPort(dep, port)
	if !ok {
		return nil, append(findings, Finding{Check: checkEndpoint, Severity: Warning, Namespace: svc.Namespace, Name: svc.Name,
			Message: fmt.Sprintf("cannot tell which port of Deployment %s's pods Service port %d targets (check does not read Services), so the endpoint went unchecked", dep.Name, port),
			Fix:     "name the webhook's container port https, or give its pods one port"}), nil
	}
	targets := podTargets(pods, podPort, svc.Name+"."+svc.Namespace+".svc")
	if len(targets) == 0 {
		findings = append(findings, Finding{Check: checkEndpoint, Severity: Error, Namespace: svc.Namespace, Name: svc.Name,
			Message: fmt.Sprintf("no running pod of Deployment %s answers for Service %s; %s", dep.Name, svc.Name, w.consequence()),
			Fix:     fmt.Sprintf("kubectl -n %s describe deployment %s", svc.Namespace, dep.Name)})
	}
	return targets, findings, nil
}

// servicePort is the Service port the API server calls: 443 unless set.
func servicePort(w tandemWebhook) int32 {
	if p := w.hook.ClientConfig.Service.Port; p != nil {
		return *p
	}
	return 443
}

// targetPort guesses the pods' port behind Service port: the same number
// if a container exposes it, else the port named https, else the only one.
func targetPort(dep *appsv1.Deployment, port int32) (int32, bool) {
	var all []corev1.ContainerPort
	for _, c := range dep.Spec.Template.Spec.Containers {
		all = append(all, c.Ports...)
	}
	for _, p := range all {
		if p.ContainerPort == port {
			return port, true
		}
	}
	for _, p := range all {
		if p.Name == "https" {
			return p.ContainerPort, true
		}
	}
	if len(all) == 1 {
		return all[0].ContainerPort, true
	}
	return 0, false
}

// podTargets are the addresses of the running pods.
func podTargets(pods []corev1.Pod, port int32, serverName string) []target {
	var targets []target
	for _, p := range pods {
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" || p.DeletionTimestamp != nil {
			continue
		}
		targets = append(targets, target{pod: p.Name, addr: net.JoinHostPort(p.Status.PodIP, strconv.Itoa(int(port))),
			serverName: serverName, ready: podReady(p)})
	}
	return targets
}

func podReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// urlTarget is where a url client config points.
func urlTarget(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, err
	}
	if u.Scheme != "https" || u.Hostname() == "" {
		return target{}, errors.New("expected https://HOST[:PORT]/PATH")
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return target{addr: net.JoinHostPort(u.Hostname(), port), serverName: u.Hostname()}, nil
}

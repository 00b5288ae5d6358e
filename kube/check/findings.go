package check

// Severity says whether a finding fails the check (exit 1) or only informs.
type Severity string

const (
	// Error: something keeps pods from completing or from being created.
	Error Severity = "error"
	// Warning: worth a look, and nothing breaks yet (or check could not
	// see for itself).
	Warning Severity = "warning"
)

// The names of the checks, as findings carry them in their "check" field.
const (
	checkHeldPod     = "held-pod"
	checkConfig      = "webhook-config"
	checkEndpoint    = "webhook-endpoint"
	checkCertificate = "webhook-certificate"
	checkReplicas    = "webhook-replicas"
	checkNamespaces  = "webhook-namespaces"
	checkRBAC        = "webhook-rbac"
	// checkPodFailurePolicy: a Job's rule that a sidecar's teardown trips.
	checkPodFailurePolicy = "pod-failure-policy"
	// checkUninjected: a pod tandem's webhook selects and would inject,
	// running without tandem.
	checkUninjected = "uninjected-pod"
	// checkModeFit: a pod with native sidecars on a node whose kubelet
	// has none (before 1.29).
	checkModeFit = "mode-fit"
)

// Finding is one thing wrong: what, where, and how to fix it. Its JSON is
// `-o json`'s, one object per finding.
type Finding struct {
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	// Namespace is empty for cluster-wide objects (a webhook configuration).
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Message   string `json:"message"`
	Fix       string `json:"fix"`
}

// Report is what one run found, and how much it looked at.
type Report struct {
	Findings []Finding
	// Pods and Webhooks count what was checked, for the all-clear line.
	Pods, Webhooks int
}

// Errors counts the findings that fail the check.
func (r Report) Errors() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == Error {
			n++
		}
	}
	return n
}

package admission

import (
	"context"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-sh/tandem/kube/inject"
)

// Decisions, as logged.
const (
	Injected = "injected"
	Skipped  = "skipped"
	Rejected = "rejected"
	// AllowedUninjected: could not inject, admitted unchanged (--on-error allow).
	AllowedUninjected = "allowed-uninjected"
	// Ignored: not a Pod CREATE; the configuration should not send these.
	Ignored = "ignored"
)

// decision is the answer to one review and what the log line says of it;
// cause is the reason in one fixed word, for the metrics.
type decision struct {
	response *admissionv1.AdmissionResponse
	name     string
	cause    Reason
	reason   string
	pod      string
}

func allow(name string, cause Reason, reason string) decision {
	return decision{response: &admissionv1.AdmissionResponse{Allowed: true}, name: name, cause: cause, reason: reason}
}

// admit decides one request.
func (h *Handler) admit(ctx context.Context, req *admissionv1.AdmissionRequest) decision {
	if req.Kind.Group != "" || req.Kind.Kind != "Pod" || req.Operation != admissionv1.Create || req.SubResource != "" {
		return allow(Ignored, ReasonNotPodCreate, "not a Pod CREATE: "+req.Kind.Kind+" "+string(req.Operation))
	}
	if d, ok := h.checkNamespace(ctx, req.Namespace); !ok {
		return d
	}
	pod, err := parsePod(req.Object.Raw, req.Namespace)
	if err != nil {
		return h.failed("pod/"+req.Name, ReasonBadObject, "tandem: "+err.Error())
	}
	opts, lookups := h.podOptions(pod)
	prepared := inject.Prepare(pod.node, opts)
	if lookups != nil {
		lookups.resolveAll(ctx, prepared.Images())
	}
	r := prepared.Inject(ctx)
	switch r.Status {
	case inject.Skipped:
		d := allow(Skipped, Reason(r.Cause), r.Reason)
		d.pod = r.Resource
		return d
	case inject.Failed:
		cause := ReasonPodSpec
		if lookups != nil && lookups.failed.Load() {
			cause = ReasonImageLookup
		}
		return h.failed(r.Resource, cause, "tandem: "+r.String())
	}
	patch, err := pod.patch()
	if err != nil {
		return h.failed(r.Resource, ReasonPatch, "tandem: "+r.Resource+": "+err.Error())
	}
	d := allow(Injected, Reason(opts.Mode), r.String())
	d.pod = r.Resource
	d.response.Patch = patch
	pt := admissionv1.PatchTypeJSONPatch
	d.response.PatchType = &pt
	d.response.Warnings = r.Warnings
	return d
}

// failed answers for a pod that cannot be injected, as --on-error says.
func (h *Handler) failed(pod string, cause Reason, msg string) decision {
	if h.cfg.OnError == inject.Allow {
		d := allow(AllowedUninjected, cause, msg)
		d.response.Warnings = []string{msg + " (admitted without tandem: --on-error allow)"}
		d.pod = pod
		return d
	}
	return decision{response: deny(msg), name: Rejected, cause: cause, reason: msg, pod: pod}
}

// checkNamespace confirms that the namespace is selected. The API server
// applies the configuration's namespaceSelector already; checking again
// keeps a configuration edited too wide from injecting everywhere.
func (h *Handler) checkNamespace(ctx context.Context, namespace string) (decision, bool) {
	if h.cfg.Namespaces == nil {
		return decision{}, true
	}
	got, err := h.cfg.Namespaces.Labels(ctx, namespace)
	if err != nil {
		return h.failed("", ReasonNamespaceLookup, "tandem: read the labels of namespace "+namespace+": "+err.Error()), false
	}
	if !h.cfg.Selector.Matches(labels.Set(got)) {
		return allow(Skipped, ReasonNamespaceNotSelected, "namespace "+namespace+" not selected ("+h.cfg.Selector.String()+")"), false
	}
	return decision{}, true
}

// podOptions are the inject options for one pod: its image-named
// sidecars, and lookups with its own credentials (nil: lookups are off).
func (h *Handler) podOptions(pod *podDoc) (inject.Options, *podResolver) {
	opts := h.cfg.Inject
	if mode := h.mode.Load(); mode != nil {
		opts.Mode = *mode
	}
	if install := h.install.Load(); install != nil {
		opts.Install = *install
	}
	opts.Sidecars = append(append([]string{}, opts.Sidecars...), pod.imageSidecars(h.sidecarImages)...)
	opts.Resolver = nil
	if h.cfg.Images == nil {
		return opts, nil
	}
	lookups := &podResolver{images: h.cfg.Images, keychains: h.cfg.Keychains, pod: pod.credentials, recorder: h.recorder}
	opts.Resolver = lookups
	return opts, lookups
}

func (h *Handler) logDecision(req *admissionv1.AdmissionRequest, d decision, took time.Duration) {
	ev := h.cfg.Logger.Info()
	if d.name == Rejected || d.name == AllowedUninjected {
		ev = h.cfg.Logger.Warn()
	}
	pod := d.pod
	if pod == "" {
		pod = "pod/" + req.Name
	}
	ev.Str("event", "admission").Str("decision", d.name).Str("pod", pod).Str("namespace", req.Namespace).
		Str("uid", string(req.UID)).Float64("duration_ms", float64(took.Microseconds())/1000).
		Str("reason", d.reason).Msg("admission " + d.name)
}

package admission

import (
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// Each kind of admission is counted once, with its documented outcome and a
// reason from the fixed set.
func TestRecordedOutcomes(t *testing.T) {
	gone := strings.Replace(jobPod, "registry.example/proxy:2", "registry.example/gone:1", 1)
	onErrorAllow := func(c *Config) { c.OnError = inject.Allow }
	tests := []struct {
		name, namespace, pod string
		config               func(*Config)
		request              func(*admissionv1.AdmissionRequest)
		want                 recordedAdmission
	}{
		{name: "injected", namespace: "batch", pod: jobPod, want: recordedAdmission{OutcomeInjected, ReasonClassic}},
		{name: "injected native", namespace: "batch", pod: jobPod, config: func(c *Config) { c.Inject.Mode = inject.Native },
			want: recordedAdmission{OutcomeInjected, ReasonNative}},
		{name: "opted out", namespace: "batch", pod: withAnnotations(jobPod, `"tandem.sh/sidecars":"db-proxy","tandem.sh/inject":"disabled"`),
			want: recordedAdmission{OutcomeSkipped, Reason(inject.OptedOut)}},
		{name: "already injected", namespace: "batch", pod: withAnnotations(jobPod, `"tandem.sh/sidecars":"db-proxy","tandem.sh/injected":"v8"`),
			want: recordedAdmission{OutcomeSkipped, Reason(inject.AlreadyInjected)}},
		{name: "no sidecars", namespace: "batch", pod: withAnnotations(jobPod, `"team":"x"`),
			want: recordedAdmission{OutcomeSkipped, Reason(inject.NoSidecars)}},
		{name: "namespace not selected", namespace: "plain", pod: jobPod, want: recordedAdmission{OutcomeSkipped, ReasonNamespaceNotSelected}},
		{name: "not a pod create", namespace: "batch", pod: jobPod, request: func(r *admissionv1.AdmissionRequest) { r.Operation = admissionv1.Update },
			want: recordedAdmission{OutcomeSkipped, ReasonNotPodCreate}},
		{name: "image not found", namespace: "batch", pod: gone, want: recordedAdmission{OutcomeRejected, ReasonImageLookup}},
		{name: "annotation names no container", namespace: "batch", pod: withAnnotations(jobPod, `"tandem.sh/sidecars":"db-prxy"`),
			want: recordedAdmission{OutcomeRejected, ReasonPodSpec}},
		{name: "namespace unreadable", namespace: "gone", pod: jobPod, want: recordedAdmission{OutcomeRejected, ReasonNamespaceLookup}},
		{name: "not a pod", namespace: "batch", pod: `[]`, want: recordedAdmission{OutcomeRejected, ReasonBadObject}},
		{name: "image not found, allowed", namespace: "batch", pod: gone, config: onErrorAllow,
			want: recordedAdmission{OutcomeAllowedOnError, ReasonImageLookup}},
		{name: "namespace unreadable, allowed", namespace: "gone", pod: jobPod, config: onErrorAllow,
			want: recordedAdmission{OutcomeAllowedOnError, ReasonNamespaceLookup}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.config)
			body := reviewOf(t, tt.namespace, tt.pod)
			if tt.request != nil {
				body = reviewWith(t, tt.namespace, tt.pod, tt.request)
			}
			if code, _ := f.post(t, body); code != 200 {
				t.Fatalf("status %d; want 200", code)
			}
			if !slices.Equal(f.recorder.admissions, []recordedAdmission{tt.want}) {
				t.Errorf("recorded %+v; want once %+v", f.recorder.admissions, tt.want)
			}
		})
	}
}

// A review refused before it is read (not POST, too big) is no admission:
// it is logged, and not counted.
func TestBadReviewNotCounted(t *testing.T) {
	f := newFixture(t, nil)
	if code, _ := f.post(t, []byte(`{"kind":"Nonsense"}`)); code != 400 {
		t.Fatalf("status %d; want 400", code)
	}
	if len(f.recorder.admissions) != 0 {
		t.Errorf("recorded %+v; want nothing", f.recorder.admissions)
	}
}

// Lookups are counted by result: jobPod looks up its sidecar's image
// (read), then again (from the cache); an image not found fails.
func TestRecordedLookups(t *testing.T) {
	f := newFixture(t, nil)
	f.post(t, reviewOf(t, "batch", jobPod))
	f.post(t, reviewOf(t, "batch", jobPod))
	f.post(t, reviewOf(t, "batch", strings.Replace(jobPod, "registry.example/proxy:2", "registry.example/gone:1", 1)))
	if want := []LookupResult{LookupMiss, LookupHit, LookupError}; !slices.Equal(f.recorder.lookups, want) {
		t.Errorf("lookups %v; want %v", f.recorder.lookups, want)
	}
}

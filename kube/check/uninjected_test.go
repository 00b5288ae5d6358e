package check

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// runningJobPod is a pod of Job export-1 in namespace jobs whose main and
// proxy both run, the proxy named by tandem.sh/sidecars, not injected.
func runningJobPod() corev1.Pod {
	p := jobPod("p", ctr{name: "export", running: true, ago: time.Minute}, ctr{name: "proxy", running: true, ago: time.Minute})
	p.Annotations["tandem.sh/sidecars"] = "proxy"
	p.Spec.Containers[0].Image, p.Spec.Containers[1].Image = "registry.example/export:1", "registry.example/proxy:2"
	return p
}

const (
	missedCause = "likely admitted while the webhook did not answer, under failurePolicy: Ignore, or created before the namespace was labelled"
	jobFix      = "delete the pod: its Job makes a new one, which the webhook injects (kubectl delete pod -n jobs p)"
)

// wrappedFrom gives p's containers tandem command lines run from bin.
func wrappedFrom(p *corev1.Pod, bin string) {
	p.Spec.Containers[0].Command = []string{bin, "main", "--name", "export", "--done-file", "/run/tandem/export.done", "--"}
	p.Spec.Containers[1].Command = []string{bin, "sidecar", "--name", "proxy", "--done-file", "/run/tandem/export.done", "--"}
}

func TestUninjectedPods(t *testing.T) {
	cases := []struct {
		name   string
		change func(f *fixture, p *corev1.Pod)
		want   []want
	}{
		{"annotated, of a CronJob's Job", nil, []want{{checkUninjected, Error, "p", []string{
			"not injected, though webhook tandem/inject.tandem.sh selects namespace jobs and would inject it (mains: export; sidecars: proxy)",
			"its sidecars run on after its mains end, so Job export-1 of CronJob export cannot complete", missedCause, jobFix}}}},
		{"a known sidecar's image, no annotation", func(_ *fixture, p *corev1.Pod) {
			delete(p.Annotations, "tandem.sh/sidecars")
			p.Spec.Containers[1].Image = "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3"
		}, []want{{checkUninjected, Error, "p", []string{"sidecars: proxy"}}}},
		{"a command of its own", func(_ *fixture, p *corev1.Pod) {
			p.Spec.Containers[1].Command = []string{"/proxy", "--port", "5432"}
		}, []want{{checkUninjected, Error, "p", nil}}},
		{"a Job without a CronJob", func(f *fixture, _ *corev1.Pod) { f.cluster.jobs = nil },
			[]want{{checkUninjected, Error, "p", []string{"so Job export-1 cannot complete", jobFix}}}},
		{"a Deployment's pod", func(_ *fixture, p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyAlways
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "api-7d9c", Controller: ptr.To(true)}}
		}, []want{{checkUninjected, Warning, "p", []string{"without tandem's start and stop order",
			"delete the pod: its ReplicaSet makes a new one, which the webhook injects (kubectl delete pod -n jobs p)"}}}},
		{"a native sidecar only", func(_ *fixture, p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "proxy", Image: "registry.example/proxy:2", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
			p.Spec.Containers = p.Spec.Containers[:1]
		}, []want{{checkUninjected, Warning, "p", []string{"sidecars: proxy", "without tandem's start and stop order"}}}},
		{"a bare pod", func(_ *fixture, p *corev1.Pod) { p.OwnerReferences = nil },
			[]want{{checkUninjected, Error, "p", []string{"so the pod cannot complete", "create the pod again from its manifest, and the webhook injects it (kubectl delete pod -n jobs p first)"}}}},
		{"injected", func(_ *fixture, p *corev1.Pod) { p.Annotations["tandem.sh/injected"] = "v1.2.0" }, nil},
		// Its annotation lost, an injected pod is still known by its tandem
		// command lines, under either install.
		{"injected by image volume, no annotation", func(_ *fixture, p *corev1.Pod) { wrappedFrom(p, "/run/tandem-bin/tandem") }, nil},
		{"injected by init-copy, no annotation", func(_ *fixture, p *corev1.Pod) { wrappedFrom(p, "/run/tandem/tandem") }, nil},
		{"opted out", func(_ *fixture, p *corev1.Pod) { p.Annotations["tandem.sh/inject"] = "disabled" }, nil},
		{"no sidecars", func(_ *fixture, p *corev1.Pod) { delete(p.Annotations, "tandem.sh/sidecars") }, nil},
		{"cannot be injected: every container a sidecar", func(_ *fixture, p *corev1.Pod) { p.Annotations["tandem.sh/sidecars"] = "export,proxy" }, nil},
		{"succeeded", func(_ *fixture, p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }, nil},
		{"being deleted", func(_ *fixture, p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: testNow} }, nil},
		{"pending: not yet started counts", func(_ *fixture, p *corev1.Pod) {
			p.Status = corev1.PodStatus{Phase: corev1.PodPending}
		}, []want{{checkUninjected, Error, "p", nil}}},
		{"a namespace the webhook does not select", func(f *fixture, _ *corev1.Pod) {
			f.cluster.namespaces[1].Labels = nil
		}, []want{{checkNamespaces, Warning, "tandem.sh/inject=enabled", nil}}},
		{"its objectSelector leaves the pod out", func(f *fixture, _ *corev1.Pod) {
			f.hook().ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "data"}}
		}, nil},
		{"its objectSelector takes the pod", func(f *fixture, p *corev1.Pod) {
			f.hook().ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "data"}}
			p.Labels = map[string]string{"team": "data"}
		}, []want{{checkUninjected, Error, "p", nil}}},
		{"no webhook of tandem", func(f *fixture, _ *corev1.Pod) {
			f.cluster.configs = []admissionregistrationv1.MutatingWebhookConfiguration{}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.cluster.jobs = []batchv1.Job{{ObjectMeta: metav1.ObjectMeta{Namespace: jobsNS, Name: "export-1",
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "export", Controller: ptr.To(true)}}}}}
			pod := runningJobPod()
			if tc.change != nil {
				tc.change(f, &pod)
			}
			f.cluster.pods = append(f.cluster.pods, pod)
			expectFindings(t, f.run(t, Options{}).Findings, tc.want...)
		})
	}
}

// One finding per pod of a burst admitted without the webhook, each named,
// in the text and the JSON output alike.
func TestUninjectedPodsRendered(t *testing.T) {
	f := newFixture(t)
	f.hook().FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
	for _, name := range []string{"export-1-a", "export-1-b", "export-1-c"} {
		p := runningJobPod()
		p.Name = name
		f.cluster.pods = append(f.cluster.pods, p)
	}
	injected := runningJobPod()
	injected.Name, injected.Annotations["tandem.sh/injected"] = "export-1-d", "v1.2.0"
	f.cluster.pods = append(f.cluster.pods, injected)
	r := f.run(t, Options{})
	var text, js strings.Builder
	if err := Render(&text, r, Text); err != nil {
		t.Fatal(err)
	}
	if err := Render(&js, r, JSON); err != nil {
		t.Fatal(err)
	}
	var findings []Finding
	if err := json.Unmarshal([]byte(js.String()), &findings); err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, f := range findings {
		if f.Check == "uninjected-pod" && f.Severity == Error && f.Namespace == jobsNS {
			named = append(named, f.Name)
		}
	}
	if strings.Join(named, " ") != "export-1-a export-1-b export-1-c" || len(findings) != 3 {
		t.Errorf("JSON names %v among %d findings; want the three uninjected pods alone:\n%s", named, len(findings), js.String())
	}
	for _, name := range named {
		if !strings.Contains(text.String(), "ERROR uninjected-pod jobs/"+name+"\n") {
			t.Errorf("the text does not name %s:\n%s", name, text.String())
		}
	}
	if !strings.HasSuffix(text.String(), "3 errors, 0 warnings (checked 6 pods and 1 webhook of tandem)\n") {
		t.Errorf("the text's count:\n%s", text.String())
	}
}

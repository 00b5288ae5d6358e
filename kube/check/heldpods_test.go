package check

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// ctr is a container's state in a test pod: running since, or ended at, a
// time before testNow.
type ctr struct {
	name    string
	running bool
	ago     time.Duration
}

// jobPod is a pod of Job export-1 (of CronJob export) in namespace jobs.
func jobPod(name string, containers ...ctr) corev1.Pod {
	pod := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: jobsNS, Name: name, Annotations: map[string]string{},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "export-1", Controller: ptr.To(true)}}},
		Spec:   corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	for _, c := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c.name})
		at := metav1.NewTime(testNow.Add(-c.ago))
		st := corev1.ContainerStatus{Name: c.name}
		if c.running {
			st.State.Running = &corev1.ContainerStateRunning{StartedAt: at}
		} else {
			st.State.Terminated = &corev1.ContainerStateTerminated{FinishedAt: at}
		}
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, st)
	}
	return pod
}

func TestHeldPods(t *testing.T) {
	mainEnded := ctr{name: "export", ago: 5 * time.Minute}
	proxy := ctr{name: "proxy", running: true, ago: 6 * time.Minute}
	cases := []struct {
		name   string
		pod    func() corev1.Pod
		change func(f *fixture, opts *Options)
		want   []want
	}{
		{"held by its sidecar, owned by a CronJob's Job", func() corev1.Pod { return jobPod("p", mainEnded, proxy) }, nil,
			[]want{{checkHeldPod, Error, "p", []string{`held for 5m0s: main container "export" ended, "proxy" still runs, so Job export-1 of CronJob export cannot complete`,
				"kubectl get cronjob export -n jobs -o yaml | tandemctl inject --sidecar proxy - | kubectl apply -f -",
				`annotate the pod template tandem.sh/sidecars: "proxy" (namespace jobs is labelled tandem.sh/inject=enabled)`}}}},
		{"not yet held: the main ended 30s ago", func() corev1.Pod { return jobPod("p", ctr{name: "export", ago: 30 * time.Second}, proxy) }, nil, nil},
		{"--stuck-after 10m", func() corev1.Pod { return jobPod("p", mainEnded, proxy) }, func(_ *fixture, opts *Options) { opts.StuckAfter = 10 * time.Minute }, nil},
		// Annotated in a labelled namespace, uninjected: not held yet, but
		// the webhook missed it (uninjected_test.go).
		{"a main still runs", func() corev1.Pod { return jobPod("p", mainEnded, ctr{name: "load", running: true}, proxy) }, func(f *fixture, _ *Options) {
			f.cluster.pods[len(f.cluster.pods)-1].Annotations["tandem.sh/sidecars"] = "proxy"
		}, []want{{checkUninjected, Error, "p", nil}}},
		{"annotated: two mains ended, two sidecars, one still runs", func() corev1.Pod {
			return jobPod("p", mainEnded, ctr{name: "load", ago: 2 * time.Minute}, proxy, ctr{name: "istio", ago: time.Minute})
		}, func(f *fixture, _ *Options) {
			f.cluster.pods[len(f.cluster.pods)-1].Annotations["tandem.sh/sidecars"] = "proxy, istio"
		},
			[]want{{checkHeldPod, Error, "p", []string{`held for 2m0s: main containers "export", "load" ended, "proxy" still runs`, "--sidecar proxy "}},
				{checkUninjected, Error, "p", []string{"sidecars: proxy, istio"}}}},
		{"two sidecars running, unannotated", func() corev1.Pod {
			return jobPod("p", mainEnded, proxy, ctr{name: "istio", running: true})
		}, nil, []want{{checkHeldPod, Error, "p", []string{`"proxy", "istio" still run`, "--sidecar proxy,istio"}}}},
		{"a CronJob's Job made by kubectl 1.27 (an owner, not the controller)", func() corev1.Pod { return jobPod("p", mainEnded, proxy) }, func(f *fixture, _ *Options) {
			f.cluster.jobs[0].OwnerReferences[0].Controller = nil
		}, []want{{checkHeldPod, Error, "p", []string{"so Job export-1 of CronJob export cannot complete", "kubectl get cronjob export -n jobs -o yaml"}}}},
		{"a Job without a CronJob, namespace not labelled", func() corev1.Pod { return jobPod("p", mainEnded, proxy) }, func(f *fixture, _ *Options) {
			f.cluster.jobs = nil
			f.cluster.namespaces[1].Labels = nil
		}, []want{
			{checkHeldPod, Error, "p", []string{"so Job export-1 cannot complete", "run tandemctl inject --sidecar proxy on the manifest of Job export-1 and create it again",
				"and label the namespace: kubectl label namespace jobs tandem.sh/inject=enabled"}},
			{checkNamespaces, Warning, "tandem.sh/inject=enabled", nil},
		}},
		{"a bare pod", func() corev1.Pod { p := jobPod("p", mainEnded, proxy); p.OwnerReferences = nil; return p }, nil,
			[]want{{checkHeldPod, Error, "p", []string{"so the pod cannot complete", "on the manifest of pod p"}}}},
		{"injected, yet held", func() corev1.Pod {
			p := jobPod("p", mainEnded, proxy)
			p.Annotations["tandem.sh/injected"] = "v1.2.0"
			return p
		}, nil, []want{{checkHeldPod, Error, "p", []string{`tandem is injected in this pod, yet "proxy" did not stop`, "kubectl logs -n jobs p -c proxy"}}}},
		{"restartPolicy Always", func() corev1.Pod {
			p := jobPod("p", mainEnded, proxy)
			p.Spec.RestartPolicy = corev1.RestartPolicyAlways
			return p
		}, nil, nil},
		{"completed", func() corev1.Pod { p := jobPod("p", mainEnded, proxy); p.Status.Phase = corev1.PodSucceeded; return p }, nil, nil},
		{"being deleted", func() corev1.Pod {
			p := jobPod("p", mainEnded, proxy)
			p.DeletionTimestamp = &metav1.Time{Time: testNow}
			return p
		}, nil, nil},
		{"a status not yet reported", func() corev1.Pod {
			p := jobPod("p", mainEnded, proxy)
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "late"})
			return p
		}, nil, nil},
		{"every container ended", func() corev1.Pod { return jobPod("p", mainEnded, ctr{name: "proxy", ago: time.Minute}) }, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.cluster.jobs = []batchv1.Job{{ObjectMeta: metav1.ObjectMeta{Namespace: jobsNS, Name: "export-1",
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "export", Controller: ptr.To(true)}}}}}
			f.cluster.pods = append(f.cluster.pods, tc.pod())
			opts := Options{}
			if tc.change != nil {
				tc.change(f, &opts)
			}
			expectFindings(t, f.run(t, opts).Findings, tc.want...)
		})
	}
}

// -n limits the held pods, and the Jobs listed (once), to a namespace.
func TestHeldPodsNamespace(t *testing.T) {
	f := newFixture(t)
	f.cluster.pods = append(f.cluster.pods, jobPod("p", ctr{name: "export", ago: time.Hour}, ctr{name: "proxy", running: true}))
	f.cluster.namespaces = append(f.cluster.namespaces, namespace("other", nil))
	if r := f.run(t, Options{Namespace: "other"}); len(r.Findings) != 0 || r.Pods != 0 || !slices.Equal(f.cluster.jobLists, []string{"other"}) {
		t.Errorf("-n other: %d findings over %d pods, jobs listed in %v; want none, jobs listed in [other]", len(r.Findings), r.Pods, f.cluster.jobLists)
	}
	f.cluster.jobLists = nil
	r := f.run(t, Options{Namespace: jobsNS})
	if r.Errors() != 1 || r.Pods != 1 || r.Webhooks != 1 || !slices.Equal(f.cluster.jobLists, []string{jobsNS}) {
		t.Errorf("-n jobs: %d errors over %d pods and %d webhooks, jobs listed in %v; want 1 over 1 and 1, in [jobs]",
			r.Errors(), r.Pods, r.Webhooks, f.cluster.jobLists)
	}
}

// -n naming a namespace the cluster does not have is an error saying so,
// not a report of nothing wrong.
func TestNoSuchNamespace(t *testing.T) {
	f := newFixture(t)
	_, err := checker{cluster: f.cluster, prober: f.prober, now: testNow}.run(context.Background(), Options{Namespace: "nosuchnamespace", StuckAfter: time.Minute})
	var missing NoSuchNamespace
	if !errors.As(err, &missing) || missing.Namespace != "nosuchnamespace" || !strings.Contains(err.Error(), `namespace "nosuchnamespace" does not exist`) {
		t.Errorf("check -n nosuchnamespace: %v; want that it does not exist", err)
	}
	if r := f.run(t, Options{Namespace: jobsNS}); r.Errors() != 0 {
		t.Errorf("check -n %s: %d errors; want none", jobsNS, r.Errors())
	}
}

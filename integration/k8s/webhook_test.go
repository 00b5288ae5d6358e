//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// plainJob is a Job as a team writes it: no tandem anywhere, only the
// annotation that names its sidecar. Without the webhook it never
// completes (the proxy runs forever; see TestControlClassicJobStaysActive).
// Its main names no command: the webhook reads the image's ENTRYPOINT from
// the registry with the pod's pull secret (and reads the proxy's image for
// its STOPSIGNAL).
func plainJob(name, sidecars string) string {
	return fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata:
  name: %s
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations:
        tandem.sh/sidecars: %s
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 5
      imagePullSecrets:
        - name: regcred
      containers:
        - name: work
          image: %s
          imagePullPolicy: Never
        - name: proxy
          image: %s
          imagePullPolicy: Never
          command: ["sleep", "3600"]
---
`, name, sidecars, appImage, appImage)
}

// webhookJobBound: a Job of this shape completes in about six seconds here; the
// bound leaves room for a loaded machine and 20 at once.
const webhookJobBound = 4 * time.Minute

// plainJobInjected applies the plain Job in a new namespace labelled for
// the webhook and waits until it is Complete: it returns the namespace and
// the time from the apply.
func plainJobInjected(t *testing.T) (*namespace, time.Duration) {
	t.Helper()
	n := newNamespace(t)
	n.enableInjection()
	n.pullSecret()
	start := time.Now()
	n.run([]byte(plainJob("export", "proxy")), "apply", "-f", "-")
	return n, n.mustComplete("export", start, webhookJobBound)
}

// TestWebhook installs examples/webhook/ and plays Jobs against it. Its
// subtests run in order: they share the one installation.
func TestWebhook(t *testing.T) {
	installWebhook(t)
	t.Run("Latency", testWebhookLatency)
	t.Run("PlainJobCompletes", func(t *testing.T) {
		n, took := plainJobInjected(t)
		if injected := n.injectedPods(); len(injected) != 1 || countTrue(injected) != 1 {
			t.Errorf("pods injected: %v; want the one pod", injected)
		}
		t.Logf("plain Job, injected at admission: apply → Complete in %s", took.Round(time.Millisecond))
	})
	t.Run("TwentyAtOnce", func(t *testing.T) {
		n := newNamespace(t)
		n.enableInjection()
		n.pullSecret()
		var all strings.Builder
		for i := range 20 {
			all.WriteString(plainJob(fmt.Sprintf("batch-%02d", i), "proxy"))
		}
		start := time.Now()
		n.run([]byte(all.String()), "apply", "-f", "-")
		n.completeAll(20, "batch-%02d", start)
	})
	t.Run("WebhookPodDeletedMeanwhile", func(t *testing.T) {
		n := newNamespace(t)
		n.enableInjection()
		n.pullSecret()
		start := time.Now()
		victim := webhookPods(t)[0]
		for i := range 10 {
			if i == 3 {
				if _, err := kubectl(context.Background(), nil, "-n", webhookNamespace, "delete", "pod", victim, "--wait=false"); err != nil {
					t.Fatal(err)
				}
			}
			n.run([]byte(plainJob(fmt.Sprintf("during-%02d", i), "proxy")), "apply", "-f", "-")
		}
		n.completeAll(10, "during-%02d", start)
	})
	t.Run("UninjectableIsRejected", func(t *testing.T) {
		n := newNamespace(t)
		n.enableInjection()
		n.pullSecret()
		n.run([]byte(plainJob("typo", "proxxy")), "apply", "-f", "-")
		want := `tandem.sh/sidecars names container "proxxy", which this pod does not have`
		n.waitEvent("typo", want, time.Minute)
	})
	t.Run("UnlabelledNamespaceUntouched", func(t *testing.T) {
		n := newNamespace(t)
		n.pullSecret()
		n.run([]byte(plainJob("alone", "proxy")), "apply", "-f", "-")
		n.waitFor("job/alone", "{.status.active}=1", time.Minute)
		p := n.onlyPod("alone")
		if injected := n.injectedPods(); countTrue(injected) != 0 {
			t.Errorf("a pod of an unlabelled namespace was injected: %v", injected)
		}
		out := n.run(nil, "get", "pod", p.Metadata.Name, "-o", "jsonpath={.spec.initContainers[*].name} {.spec.containers[*].command}")
		if strings.Contains(out, "tandem") {
			t.Errorf("pod spec mentions tandem: %s", out)
		}
	})
}

// completeAll waits for Jobs format%d, 0..count-1, to complete, in
// parallel, and checks each pod was injected.
func (n *namespace) completeAll(count int, format string, start time.Time) {
	n.t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, count)
	took := make([]time.Duration, count)
	for i := range count {
		wg.Add(1)
		go func() {
			defer wg.Done()
			end, at, err := n.waitJob(fmt.Sprintf(format, i), webhookJobBound)
			if err == nil && end != "Complete" {
				err = fmt.Errorf("job %s ended %s; want Complete", fmt.Sprintf(format, i), end)
			}
			errs[i], took[i] = err, at.Sub(start)
		}()
	}
	wg.Wait()
	var slowest time.Duration
	for i, err := range errs {
		if err != nil {
			n.t.Error(err)
		}
		slowest = max(slowest, took[i])
	}
	injected := n.injectedPods()
	if len(injected) != count {
		n.t.Errorf("%d pods, %d injected; want each of the %d Jobs' pods injected: %v", len(injected), countTrue(injected), count, injected)
	}
	if countTrue(injected) != len(injected) {
		n.t.Errorf("some pods were not injected: %v", injected)
	}
	n.t.Logf("%d Jobs: the last completed %s after the first apply", count, slowest.Round(time.Millisecond))
}

// waitEvent waits until an event of object carries want.
func (n *namespace) waitEvent(object, want string, bound time.Duration) {
	n.t.Helper()
	deadline := time.Now().Add(bound)
	for {
		out, err := n.try(nil, "get", "events", "--field-selector", "involvedObject.name="+object, "-o", "jsonpath={.items[*].message}")
		if err == nil && strings.Contains(out, want) {
			n.t.Logf("event of %s: …%s…", object, want)
			return
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("no event of %s says %q within %s; events: %s (%v)", object, want, bound, out, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// injectedPods says, for each pod of the namespace, whether it carries
// tandem.sh/injected.
func (n *namespace) injectedPods() map[string]bool {
	n.t.Helper()
	out := n.run(nil, "get", "pods", "-o", `jsonpath={range .items[*]}{.metadata.name}={.metadata.annotations.tandem\.sh/injected}{"\n"}{end}`)
	pods := map[string]bool{}
	for _, line := range strings.Fields(out) {
		name, value, _ := strings.Cut(line, "=")
		pods[name] = value != ""
	}
	return pods
}

func countTrue(m map[string]bool) int {
	c := 0
	for _, v := range m {
		if v {
			c++
		}
	}
	return c
}

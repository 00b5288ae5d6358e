//go:build k8s

package k8s

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// A burst of pod creates, as fast as the API server takes them from a few
// clients at once, each one's outcome kept with its time: what the fault
// tests count while they break the webhook underneath.

// burstWorkers create at once: a Job controller's burst, not a storm
// that would starve a two-core node of the CPU the rollout needs.
const burstWorkers = 3

// adminClient is client-go as the suite's kubeconfig says, not throttled
// on the client's side: the API server's own pace is what is measured.
func adminClient(t *testing.T) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// burstPod is a pod injection changes and no lookup is needed for (each
// container says its command, the sidecar its stop signal), which asks
// for a node no node is: admission is all that happens to it.
func burstPod(name string) *corev1.Pod {
	idle := func(name string, command ...string) corev1.Container {
		return corev1.Container{Name: name, Image: testImage, ImagePullPolicy: corev1.PullNever, Command: command}
	}
	grace := int64(0)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
			"tandem.sh/sidecars": "proxy", "tandem.sh/stop-signal.proxy": "TERM",
		}},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			NodeSelector:                  map[string]string{"tandem.sh/test-node": "none"},
			TerminationGracePeriodSeconds: &grace,
			Containers:                    []corev1.Container{idle("work", "sh", "-c", "echo work done"), idle("proxy", "sleep", "3600")},
		},
	}
}

// outcome is what became of one create.
type outcome int

const (
	created  outcome = iota // stored (or, in a dry run, admitted)
	refused                 // the webhook's refusal: not reached under Fail, or tandem said no
	otherErr                // anything else: a fault of the test or the cluster
)

// attempt is one create: its pod, when it was sent (since the burst's
// start), how long it took, what became of it.
type attempt struct {
	pod      string
	at, took time.Duration
	outcome  outcome
	injected bool
	err      error
}

// classify tells the webhook's refusals from other errors: the API server
// names the webhook it could not call (failurePolicy Fail), and tandem's
// own refusals begin "tandem:".
func classify(err error) outcome {
	switch {
	case err == nil:
		return created
	case strings.Contains(err.Error(), `"inject.tandem.sh"`), strings.Contains(err.Error(), "tandem: "):
		return refused
	default:
		return otherErr
	}
}

// burst creates pods named prefix-NNNN in ns; dry runs are admitted (the
// webhook is called) but not stored.
type burst struct {
	client kubernetes.Interface
	ns     string
	prefix string
	dryRun bool

	// start is when the burst began; set before run.
	start    time.Time
	next     atomic.Int64
	mu       sync.Mutex
	attempts []attempt
}

// startBurst begins sending b's creates from burstWorkers goroutines;
// finish ends the burst once at least were attempted and returns every
// attempt. The test's end stops a burst not finished.
func startBurst(t *testing.T, b *burst, least int) (finish func() []attempt) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	b.start = time.Now()
	var wg sync.WaitGroup
	for range burstWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(b.next.Add(1) - 1)
				if i >= least && closed(stop) {
					return
				}
				b.record(b.create(ctx, fmt.Sprintf("%s-%04d", b.prefix, i)))
			}
		}()
	}
	var once sync.Once
	finish = func() []attempt {
		once.Do(func() { close(stop); wg.Wait(); cancel() })
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.attempts
	}
	t.Cleanup(func() { cancel(); finish() })
	return finish
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// create sends one pod and says what became of it.
func (b *burst) create(ctx context.Context, name string) attempt {
	opts := metav1.CreateOptions{}
	if b.dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	a := attempt{pod: name, at: time.Since(b.start)}
	got, err := b.client.CoreV1().Pods(b.ns).Create(ctx, burstPod(name), opts)
	a.took = time.Since(b.start) - a.at
	a.outcome, a.err = classify(err), err
	if err == nil {
		_, a.injected = got.Annotations["tandem.sh/injected"]
	}
	return a
}

func (b *burst) record(a attempt) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.attempts = append(b.attempts, a)
}

// answered is how many creates have had their answer.
func (b *burst) answered() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.attempts)
}

// awaitAnswered waits until total creates have had their answer, at most
// a minute.
func (b *burst) awaitAnswered(t *testing.T, total int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for b.answered() < total {
		if time.Now().After(deadline) {
			t.Fatalf("the burst answered %d creates in a minute; want %d", b.answered(), total)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// awaitStreak waits, at most bound, until the last k answers were all
// injected pods, and returns when the first of them was sent.
func (b *burst) awaitStreak(t *testing.T, k int, bound time.Duration) time.Duration {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		b.mu.Lock()
		streak, from := 0, time.Duration(0)
		for i := len(b.attempts) - 1; i >= 0 && streak < k; i-- {
			if a := b.attempts[i]; a.outcome != created || !a.injected {
				break
			}
			streak, from = streak+1, b.attempts[i].at
		}
		b.mu.Unlock()
		if streak == k {
			return from
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d admissions in a row injected within %s (the last run: %d)", k, bound, streak)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// longestFailing is the longest time from a failed create's send to the
// answer of the last failure before the next success, creates taken in
// the order they were sent: how long admissions kept failing.
func longestFailing(attempts []attempt) time.Duration {
	sorted := slices.SortedFunc(slices.Values(attempts), func(a, b attempt) int { return cmp.Compare(a.at, b.at) })
	var longest, from time.Duration
	failing := false
	for _, a := range sorted {
		if a.outcome == created && a.injected {
			failing = false
			continue
		}
		if !failing {
			failing, from = true, a.at
		}
		longest = max(longest, a.at+a.took-from)
	}
	return longest
}

// tally is a burst counted.
type tally struct {
	attempted, created, injected, uninjected, refused, other int
	// span is the first send to the last answer.
	span time.Duration
	// firstRefused and lastRefused bound the refusals (zero without any).
	firstRefused, lastRefused time.Duration
	// uninjectedPods and injectedPods name what was created.
	uninjectedPods, injectedPods []string
	// refusals and others are the errors, refused and neither.
	refusals, others []error
}

func count(attempts []attempt) tally {
	var c tally
	for _, a := range attempts {
		c.attempted++
		c.span = max(c.span, a.at+a.took)
		switch a.outcome {
		case created:
			c.created++
			if a.injected {
				c.injected++
				c.injectedPods = append(c.injectedPods, a.pod)
			} else {
				c.uninjected++
				c.uninjectedPods = append(c.uninjectedPods, a.pod)
			}
		case refused:
			if c.refused == 0 || a.at < c.firstRefused {
				c.firstRefused = a.at
			}
			c.refused++
			c.refusals = append(c.refusals, a.err)
			c.lastRefused = max(c.lastRefused, a.at)
		default:
			c.other++
			c.others = append(c.others, a.err)
		}
	}
	return c
}

// rate is creates answered per second over the burst.
func (c tally) rate() float64 {
	if c.span <= 0 {
		return 0
	}
	return float64(c.attempted) / c.span.Seconds()
}

func (c tally) String() string {
	return fmt.Sprintf("%d attempted in %s (%.0f/s): %d created (%d injected, %d uninjected), %d refused, %d other errors",
		c.attempted, c.span.Round(time.Millisecond), c.rate(), c.created, c.injected, c.uninjected, c.refused, c.other)
}

// failOthers fails the test on any error that was not the webhook's
// refusal, showing the first few.
func (c tally) failOthers(t *testing.T) {
	t.Helper()
	if c.other > 0 {
		t.Errorf("%d creates failed otherwise than by the webhook's refusal; the first: %v", c.other, c.others[:min(3, len(c.others))])
	}
}

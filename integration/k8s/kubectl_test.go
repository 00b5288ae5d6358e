//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// kubectlTimeout bounds a kubectl call that should return at once (all
// but watches), so a stuck call fails one test, not the whole run.
const kubectlTimeout = time.Minute

// kubectl runs kubectl with stdin (may be nil) under ctx.
func kubectl(ctx context.Context, stdin []byte, args ...string) (string, error) {
	out, _, err := kit.Tool{Bin: kubectlBin}.Run(ctx, stdin, args...)
	return out, err
}

// namespace is one test's own namespace, deleted when the test ends; when
// the test failed, its pods' statuses and events are printed first.
type namespace struct {
	t    *testing.T
	name string
}

func newNamespace(t *testing.T) *namespace {
	t.Helper()
	requireCluster(t)
	n := &namespace{t: t, name: namespaceName(t.Name())}
	n.run(nil, "create", "namespace", n.name)
	t.Cleanup(func() {
		if t.Failed() {
			n.dump()
		}
		ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
		defer cancel()
		_, _ = kubectl(ctx, nil, "delete", "namespace", n.name, "--wait=false")
	})
	// The ServiceAccount admission refuses pods until the namespace's
	// default account exists, which the controller-manager makes.
	n.waitFor("serviceaccount/default", "{.metadata.name}=default", time.Minute)
	return n
}

var notDNS = regexp.MustCompile(`[^a-z0-9]+`)

// namespaceName is t's name as a DNS label, unique to this test process.
func namespaceName(test string) string {
	name := strings.Trim(notDNS.ReplaceAllString(strings.ToLower(test), "-"), "-")
	suffix := fmt.Sprintf("-%d", time.Now().UnixNano()%1e6)
	return strings.TrimRight(name[:min(len(name), 63-len(suffix))], "-") + suffix
}

// run runs kubectl in the namespace and fails the test on error.
func (n *namespace) run(stdin []byte, args ...string) string {
	n.t.Helper()
	out, err := n.try(stdin, args...)
	if err != nil {
		n.t.Fatal(err)
	}
	return out
}

func (n *namespace) try(stdin []byte, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	out, _, err := n.kubectl().Run(ctx, stdin, args...)
	return out, err
}

// kubectl is the kit's runner for kubectl in the namespace.
func (n *namespace) kubectl() kit.Runner {
	return kit.Tool{Bin: kubectlBin, Args: []string{"--namespace", n.name}}
}

// serviceAccount creates one the examples name (their Workload Identity).
func (n *namespace) serviceAccount(name string) {
	n.t.Helper()
	n.run(nil, "create", "serviceaccount", name)
}

// waitFor waits, at most bound, until `kubectl get OBJ -o jsonpath=EXPR`
// prints want (EXPR=WANT as in kubectl wait --for=jsonpath).
func (n *namespace) waitFor(obj, exprWant string, bound time.Duration) {
	n.t.Helper()
	expr, want, _ := strings.Cut(exprWant, "=")
	deadline := time.Now().Add(bound)
	for {
		out, err := n.try(nil, "get", obj, "-o", "jsonpath="+expr)
		if err == nil && out == want {
			return
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("%s: %s is %q, not %q, after %s (%v)", obj, expr, out, want, bound, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dump prints what a failed test needs: every pod's status, and the
// namespace's events in order.
func (n *namespace) dump() {
	var b strings.Builder
	for _, args := range [][]string{
		{"get", "jobs,pods", "-o", "wide"},
		{"describe", "pods"},
		{"get", "pods", "-o", "jsonpath={range .items[*]}{.metadata.name}: {.status}{\"\\n\"}{end}"},
		{"get", "events", "--sort-by=.lastTimestamp"},
	} {
		out, err := n.try(nil, args...)
		fmt.Fprintf(&b, "$ kubectl %s\n%s", strings.Join(args, " "), out)
		if err != nil {
			fmt.Fprintf(&b, "(%v)\n", err)
		}
	}
	n.t.Logf("namespace %s at the failure:\n%s", n.name, b.String())
}

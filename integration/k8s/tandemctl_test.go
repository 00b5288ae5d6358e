//go:build k8s

package k8s

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// tandemctlBin is $TANDEMCTL_BIN, else the tandemctl built next to tandem
// (make build puts both in bin/).
func tandemctlBin() string {
	if bin := os.Getenv("TANDEMCTL_BIN"); bin != "" {
		return bin
	}
	return filepath.Join(filepath.Dir(tandemBinary()), "tandemctl")
}

// injectManifest runs `tandemctl inject flags... -` on manifest: no
// registry (the containers say their command), the locally imported tandem
// image. It returns the injected manifest and what tandemctl reported.
func injectManifest(t *testing.T, manifest []byte, flags ...string) (injected []byte, report string) {
	t.Helper()
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	args := append([]string{"inject", "--resolve", "none", "--image", tandemImage}, flags...)
	stdout, stderr, err := kit.Tool{Bin: tandemctlBin()}.Run(ctx, manifest, append(args, "-")...)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(stdout), stderr
}

// checkRun is one run of `tandemctl check`: what it printed, how it exited
// (0: nothing wrong, 1: errors found), and how long it took.
type checkRun struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// runCheck runs `tandemctl check args...` with kubeconfig ("" for the
// suite's). Any exit but 0 and 1 (a usage error, an API error) fails the
// test.
func runCheck(t *testing.T, kubeconfig string, args ...string) checkRun {
	t.Helper()
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	tool := kit.Tool{Bin: tandemctlBin(), Args: []string{"check"}}
	if kubeconfig != "" {
		tool.Args = append(tool.Args, "--kubeconfig", kubeconfig)
	}
	start := time.Now()
	stdout, stderr, err := tool.Run(ctx, nil, args...)
	run := checkRun{stdout: stdout, stderr: stderr, took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		run.code = 1
	case err != nil:
		t.Fatalf("%v\nstdout:\n%s", err, stdout)
	}
	return run
}

// checkUntil runs check until done says its run is the awaited one, at
// most bound: a pod counts as held only some time after its main ended.
func checkUntil(t *testing.T, bound time.Duration, done func(checkRun) bool, args ...string) checkRun {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		run := runCheck(t, "", args...)
		if done(run) {
			return run
		}
		if time.Now().After(deadline) {
			t.Fatalf("tandemctl check %s: not the awaited report after %s; the last, exit %d:\n%s%s",
				strings.Join(args, " "), bound, run.code, run.stdout, run.stderr)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkFinding is one finding of `tandemctl check -o json`.
type checkFinding struct {
	Check     string `json:"check"`
	Severity  string `json:"severity"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Message   string `json:"message"`
	Fix       string `json:"fix"`
}

// findings parses a run of check -o json.
func (r checkRun) findings(t *testing.T) []checkFinding {
	t.Helper()
	var list []checkFinding
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("check -o json printed no list of findings: %v\n%s", err, r.stdout)
	}
	return list
}

// only returns the findings of one check.
func only(findings []checkFinding, check string) []checkFinding {
	var of []checkFinding
	for _, f := range findings {
		if f.Check == check {
			of = append(of, f)
		}
	}
	return of
}

// errorsIn returns the findings that fail the check.
func errorsIn(findings []checkFinding) []checkFinding {
	var errs []checkFinding
	for _, f := range findings {
		if f.Severity == "error" {
			errs = append(errs, f)
		}
	}
	return errs
}

// mustContain fails the test unless text holds each of wants.
func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s does not say %q:\n%s", what, want, text)
		}
	}
}

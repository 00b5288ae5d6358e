//go:build k8s

package k8s

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// played lists the examples that a test plays on the cluster. A new file in
// examples/ fails TestEveryExampleIsPlayed until a test plays it.
var played = []string{
	"deployment-log-shipper.yaml",
	"job-done-file.yaml",
	"job-init-copy.yaml",
	"job-mesh-quit.yaml",
	"job-poststart-order.yaml",
	"job-shared-pid.yaml",
	"job-startup-order.yaml",
	"inject/job-injected.yaml",
}

// exampleFiles are the manifests a cluster can run: examples/*.yaml, and
// what tandemctl inject wrote in examples/inject/ (its input, job-plain.yaml,
// is the Job without tandem that TestControlClassicJobStaysActive plays).
func exampleFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples/*.yaml: %v", err)
	}
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	injected, _ := filepath.Glob(filepath.Join(repoRoot, "examples", "inject", "*-injected.yaml"))
	for _, f := range injected {
		files = append(files, "inject/"+filepath.Base(f))
	}
	return files
}

func TestEveryExampleIsPlayed(t *testing.T) {
	files := exampleFiles(t)
	for _, name := range files {
		if !slices.Contains(played, name) {
			t.Errorf("examples/%s is played by no test of integration/k8s: add one and list it in played", name)
		}
	}
	for _, name := range played {
		if !slices.Contains(files, name) {
			t.Errorf("examples/%s is listed in played but does not exist", name)
		}
	}
}

var (
	playedMu    sync.Mutex
	playedFiles = map[string]bool{}
)

func markPlayed(file string) {
	playedMu.Lock()
	defer playedMu.Unlock()
	playedFiles[file] = true
}

// checkAllPlayed runs after the tests: a full run (no -run filter, nothing
// skipped) must have applied every example, whatever played says.
func checkAllPlayed() error {
	if f := flag.Lookup("test.run"); f == nil || f.Value.String() != "" || skipReason != "" {
		return nil
	}
	playedMu.Lock()
	defer playedMu.Unlock()
	for _, name := range played {
		if !playedFiles[name] {
			return fmt.Errorf("examples/%s was applied by no test", name)
		}
	}
	return nil
}

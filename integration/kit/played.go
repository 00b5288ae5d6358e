package kit

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// Examples are the manifests of examples/ that every pod suite plays:
// examples/*.yaml, and what tandemctl inject wrote in examples/inject/ (its
// input, job-plain.yaml, is the Job without tandem the controls play). A
// new file there fails CheckListed until a test plays it and is listed here.
var Examples = []string{
	"deployment-log-shipper.yaml",
	"job-done-file.yaml",
	"job-init-copy.yaml",
	"job-mesh-quit.yaml",
	"job-poststart-order.yaml",
	"job-shared-pid.yaml",
	"job-startup-order.yaml",
	"inject/job-injected.yaml",
}

// exampleFiles lists the playable manifests under repoRoot/examples.
func exampleFiles(repoRoot string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no examples/*.yaml: %v", err)
	}
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	injected, _ := filepath.Glob(filepath.Join(repoRoot, "examples", "inject", "*-injected.yaml"))
	for _, f := range injected {
		files = append(files, "inject/"+filepath.Base(f))
	}
	return files, nil
}

// CheckListed fails t unless Examples names exactly the files of examples/.
func CheckListed(t testing.TB, repoRoot, suite string) {
	t.Helper()
	files, err := exampleFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if !slices.Contains(Examples, name) {
			t.Errorf("examples/%s is played by no test of %s: add one and list it in kit.Examples", name, suite)
		}
	}
	for _, name := range Examples {
		if !slices.Contains(files, name) {
			t.Errorf("examples/%s is listed in kit.Examples but does not exist", name)
		}
	}
}

var (
	playedMu sync.Mutex
	played   = map[string]bool{}
)

// MarkPlayed records that a test played examples/file.
func MarkPlayed(file string) {
	playedMu.Lock()
	defer playedMu.Unlock()
	played[file] = true
}

// CheckPlayed runs after the tests: a full run (no -run filter, nothing
// skipped) must have played every example, whatever Examples says.
func CheckPlayed(repoRoot string, skipped bool) error {
	if f := flag.Lookup("test.run"); f == nil || f.Value.String() != "" || skipped {
		return nil
	}
	files, err := exampleFiles(repoRoot)
	if err != nil {
		return err
	}
	playedMu.Lock()
	defer playedMu.Unlock()
	for _, name := range files {
		if !played[name] {
			return fmt.Errorf("examples/%s was played by no test", name)
		}
	}
	return nil
}

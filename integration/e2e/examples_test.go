//go:build e2e

package e2e

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// played lists the examples that a test plays. A new file in examples/ fails
// TestEveryExampleIsPlayed until a test plays it and is listed here.
var played = []string{
	"deployment-log-shipper.yaml",
	"job-done-file.yaml",
	"job-init-copy.yaml",
	"job-mesh-quit.yaml",
	"job-poststart-order.yaml",
	"job-shared-pid.yaml",
	"job-startup-order.yaml",
}

func TestEveryExampleIsPlayed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no examples/*.yaml")
	}
	var names []string
	for _, f := range files {
		name := filepath.Base(f)
		names = append(names, name)
		if !slices.Contains(played, name) {
			t.Errorf("examples/%s is played by no e2e test: add one to integration/e2e/ and list the file in played", name)
		}
	}
	for _, name := range played {
		if !slices.Contains(names, name) {
			t.Errorf("examples/%s is listed in played but does not exist", name)
		}
	}
}

var (
	playedMu    sync.Mutex
	playedFiles = map[string]bool{}
)

// markPlayed records that a test played examples/file.
func markPlayed(file string) {
	playedMu.Lock()
	defer playedMu.Unlock()
	playedFiles[file] = true
}

// checkAllPlayed runs after the tests: a full run (no -run filter, nothing
// skipped) must have played every example, whatever the list above says.
func checkAllPlayed() error {
	if f := flag.Lookup("test.run"); f == nil || f.Value.String() != "" || skipReason != "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*.yaml"))
	if err != nil {
		return err
	}
	playedMu.Lock()
	defer playedMu.Unlock()
	for _, f := range files {
		if !playedFiles[filepath.Base(f)] {
			return fmt.Errorf("examples/%s was not played by any test", filepath.Base(f))
		}
	}
	return nil
}

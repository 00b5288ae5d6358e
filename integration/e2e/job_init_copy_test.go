//go:build e2e

package e2e

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The init container copies tandem out of the scratch tandem image (which
// has no shell and no cp) into an emptyDir; the main and sidecar run it from
// there, and the Job completes as in job-done-file.yaml.
func TestJobInitCopy(t *testing.T) {
	logs := playExportJob(t, "job-init-copy.yaml", "e2e-init-copy",
		map[string]int{"install-tandem": 0, "export": 0, "cloud-sql-proxy": 0})
	kit.AssertPresent(t, logs, kit.Program("install-tandem", "installed /tandem-bin/tandem"))
}

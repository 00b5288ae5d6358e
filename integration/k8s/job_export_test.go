//go:build k8s

package k8s

import (
	"encoding/json"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The export waits for the proxy (which listens only after a second; the
// export dials once, without retry), and the proxy is stopped through the
// done file when the export ended: both exit 0 and the Job completes. Both
// containers' termination messages say why tandem ended.
func TestJobDoneFile(t *testing.T) {
	t.Parallel()
	pj := playExportJob(t, "job-done-file.yaml")
	pj.exitCodes(map[string]int{"export": 0, "cloud-sql-proxy": 0})
	assertTerminationMessage(t, pj.pod, "export", "main", 0, "exited")
	assertTerminationMessage(t, pj.pod, "cloud-sql-proxy", "sidecar", 0, "stopped")
}

// The init container copies tandem out of the scratch tandem image (no
// shell, no cp) into an emptyDir; the Job completes as job-done-file.yaml.
func TestJobInitCopy(t *testing.T) {
	t.Parallel()
	pj := playExportJob(t, "job-init-copy.yaml")
	pj.exitCodes(map[string]int{"install-tandem": 0, "export": 0, "cloud-sql-proxy": 0})
}

// playExportJob plays an export Job (job-done-file.yaml, job-init-copy.yaml)
// and checks the lifecycle order and the sidecar's stop.
func playExportJob(t *testing.T, file string) playedJob {
	t.Helper()
	n := newNamespace(t)
	n.serviceAccount("orders-export")
	m := example(t, file)
	kit.ExportApps(m)
	pj := playJob(t, n, m)
	kit.AssertOrder(t, pj.logs, kit.MainThenStop("export", "cloud-sql-proxy",
		kit.Tandem("cloud-sql-proxy", "cmd-started"),
		kit.Tandem("export", "condition-holds"),
		kit.Tandem("export", "cmd-started"),
	)...)
	// pg_dump's line comes after tandem's wait, not after cmd-started:
	// tandem logs that once the process runs, and a program this quick can
	// print first.
	kit.AssertOrder(t, pj.logs, kit.Tandem("export", "condition-holds"), kit.Program("export", "pg_dump: finished"))
	kit.AssertOrder(t, pj.logs, kit.Tandem("cloud-sql-proxy", "cmd-started"), kit.Program("cloud-sql-proxy", `received "COPY orders TO STDOUT"`))
	kit.SidecarGap(t, pj.logs, "export", "cloud-sql-proxy", sidecarStopBound)
	return pj
}

// assertTerminationMessage reads tandem's termination log back from the
// pod's status (state.terminated.message), as `kubectl describe` shows it.
func assertTerminationMessage(t *testing.T, p pod, ctr, mode string, code int, reason string) {
	t.Helper()
	cs, _ := p.container(ctr)
	if cs.State.Terminated == nil {
		t.Fatalf("container %s has not terminated", ctr)
	}
	msg := cs.State.Terminated.Message
	var rec struct {
		Mode     string `json:"mode"`
		ExitCode *int   `json:"exitCode"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(msg), &rec); err != nil {
		t.Fatalf("container %s: termination message %q is not tandem's JSON line: %v", ctr, msg, err)
	}
	if rec.Mode != mode || rec.ExitCode == nil || *rec.ExitCode != code || (reason != "" && rec.Reason != reason) {
		t.Errorf("container %s: termination message %s; want mode %s, exitCode %d, reason %q", ctr, msg, mode, code, reason)
	}
	t.Logf("container %s: status.containerStatuses[].state.terminated.message = %s", ctr, msg)
}

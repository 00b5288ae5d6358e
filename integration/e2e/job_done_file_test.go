//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

const (
	// jobBound is how long a Job's pod may take from kube play to its end:
	// the stand-ins run for a second or two; the rest is room for podman on
	// a loaded machine.
	jobBound = 60 * time.Second
	// sidecarStopBound is how long after the main's end its sidecar may
	// still run. With tandem it is milliseconds; the classic proxy is
	// watched this long after the export ended, and is still running.
	sidecarStopBound = 10 * time.Second
)

// The export runs only once the proxy listens (it dials once, no retry), and
// the proxy is stopped through the done file as soon as the export ended:
// both containers exit 0 and the Job completes.
func TestJobDoneFile(t *testing.T) {
	logs := playExportJob(t, "job-done-file.yaml", "e2e-done-file", map[string]int{"export": 0, "cloud-sql-proxy": 0})
	kit.AssertOrder(t, logs,
		kit.Tandem("cloud-sql-proxy", "stop-sent"),
		kit.Program("cloud-sql-proxy", "cloud-sql-proxy: terminated, exiting"),
	)
	if l, ok := kit.Find(logs, kit.Tandem("export", "waiting")); !ok || l.Field("conditions") != "tcp:127.0.0.1:5432" {
		t.Errorf("export did not wait for tcp:127.0.0.1:5432: %v", l)
	}
	kit.AssertPresent(t, logs, kit.Tandem("export", "done-written"))
}

// playExportJob plays an export Job (job-done-file.yaml, job-init-copy.yaml):
// the proxy listens only after a second and the export dials once, without
// retry, so an export that finished proves it waited for the proxy. It
// checks the exit codes, the lifecycle order and the sidecar's stop, and
// returns the logs for the test's own checks.
func playExportJob(t *testing.T, example, pod string, exitCodes map[string]int) []kit.Line {
	t.Helper()
	p := examplePod(t, example, pod)
	kit.ExportApps(p.Manifest)
	_, logs := playJob(t, p, exitCodes)
	kit.AssertOrder(t, logs, kit.MainThenStop("export", "cloud-sql-proxy",
		kit.Tandem("cloud-sql-proxy", "cmd-started"),
		kit.Tandem("export", "condition-holds"),
		kit.Tandem("export", "cmd-started"),
	)...)
	kit.SidecarGap(t, logs, "export", "cloud-sql-proxy", sidecarStopBound)
	kit.AssertPresent(t, logs,
		kit.Program("export", "pg_dump: finished"),
		kit.Program("cloud-sql-proxy", `received "COPY orders TO STDOUT"`),
	)
	return logs
}

// A failed export still stops the proxy, and the Job fails with the
// export's code: the proxy's container exits 0, the export's 3.
func TestJobDoneFileFailedMain(t *testing.T) {
	p := examplePod(t, "job-done-file.yaml", "e2e-done-file-fail")
	p.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	p.Args("export", "sh", "-c", "echo pg_dump: permission denied for table orders; exit 3")
	_, logs := playJob(t, p, map[string]int{"export": 3, "cloud-sql-proxy": 0})
	done, ok := kit.Find(logs, kit.Tandem("cloud-sql-proxy", "done-seen"))
	if !ok || done.Field("main_exit_code") != "3" {
		t.Errorf("the sidecar did not read exit code 3 from the done file: %v", done.Fields)
	}
	kit.SidecarGap(t, logs, "export", "cloud-sql-proxy", sidecarStopBound)
}

// Control: the same Job without tandem, the classic pod. The export does its
// work and exits 0, but nothing stops the proxy: it still runs
// sidecarStopBound after the export ended, where tandem's stopped within
// milliseconds, and the pod (the Job) never completes. Measured and
// reported, not asserted: the runtime's doing, not tandem's.
func TestControlClassicJobNeverCompletes(t *testing.T) {
	p := examplePod(t, "job-done-file.yaml", "e2e-control-classic")
	kit.ClassicDoneFile(p.Manifest)
	pp := play(t, p)

	exportEnded := pp.waitExited(jobBound, "export")
	proxyEnded := pp.waitExited(sidecarStopBound, "cloud-sql-proxy")
	t.Logf("control: the export ended %v; %s later the proxy had ended %v (%s after kube play)",
		exportEnded, sidecarStopBound, proxyEnded, time.Since(pp.started).Round(time.Millisecond))
}

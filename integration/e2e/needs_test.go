//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// needsPlainJob is examples/inject/job-plain.yaml with its export needing
// the proxy (tandem.sh/needs), injected by the built tandemctl.
func needsPlainJob(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot, "examples", "inject", "job-plain.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const sidecars = "        tandem.sh/sidecars: cloud-sql-proxy\n"
	annotated := strings.Replace(string(src), sidecars, sidecars+"        tandem.sh/needs: cloud-sql-proxy\n", 1)
	if annotated == string(src) {
		t.Fatalf("examples/inject/job-plain.yaml no longer has %q", sidecars)
	}
	return inject(t, annotated)
}

// The proxy an export needs (tandem.sh/needs), killed outright while the
// export runs (`podman kill --signal KILL`: an OOM kill, a crash of the
// node agent): without --needs the export would run on against a dead
// proxy. Its tandem sees the proxy's lifeline let go, stops the export
// (SIGTERM: 143) and writes its done file with reason sidecar-lost; the
// pod ends.
func TestJobNeedsProxyKilledOutright(t *testing.T) {
	p := manifestPod(t, "inject/job-plain.yaml", needsPlainJob(t), "e2e-needs-killed")
	p.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	// Reads through the proxy, then works on (or hangs on a connection).
	p.Args("export", "sh", "-c", "standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT' && exec sleep 3600")
	pp := play(t, p)
	pp.waitStep(kit.Program("export", `pg_dump: sent "COPY orders TO STDOUT"`), jobBound)
	killed, lost := pp.loseSidecar("cloud-sql-proxy", "export", map[string]int{"tandem-install": 0, "cloud-sql-proxy": 137, "export": 143})
	t.Logf("proxy SIGKILLed: the export's tandem saw it lost %s after the call to podman kill (podman's own start included: its recorded end of the proxy comes later still); the pod ended %s after that call",
		lost.At.Sub(killed).Round(time.Microsecond), pp.finishedAt("export").Sub(killed).Round(time.Millisecond))
}

// The same injected Job, nothing killed: the export reads through the
// proxy and exits 0, its done file stops the proxy, and that stop (asked
// for: the main is done) is no loss. Both exit 0.
func TestJobNeedsCompletes(t *testing.T) {
	p := manifestPod(t, "inject/job-plain.yaml", needsPlainJob(t), "e2e-needs-ok")
	p.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432")
	p.Args("export", "standin", "send", "--name", "pg_dump", "127.0.0.1:5432", "COPY orders TO STDOUT")
	_, logs := playJob(t, p, map[string]int{"tandem-install": 0, "cloud-sql-proxy": 0, "export": 0})
	kit.AssertOrder(t, logs,
		kit.Tandem("export", "sidecar-attached"),
		kit.Tandem("export", "cmd-started"),
		kit.Tandem("cloud-sql-proxy", "done-seen"),
		kit.Tandem("cloud-sql-proxy", "exiting"),
	)
	if l, ok := kit.Find(logs, kit.Tandem("export", "sidecar-lost")); ok {
		t.Errorf("the export reported its proxy lost on a normal end: %v", l.Fields)
	}
}

// loseSidecar kills sidecar's container outright (`podman kill --signal
// KILL`) and returns when the kill was sent and main's sidecar-lost line,
// once sidecarLost asserted the pod's end.
func (pp *playedPod) loseSidecar(sidecar, main string, exitCodes map[string]int) (killed time.Time, lost kit.Line) {
	pp.t.Helper()
	killed = time.Now()
	if _, _, err := podman(context.Background(), "kill", "--signal", "KILL", pp.ctrName(sidecar)); err != nil {
		pp.t.Fatal(err)
	}
	return killed, pp.sidecarLost(sidecar, main, exitCodes)
}

// sidecarLost waits for the pod's end and asserts the exit codes, that
// main's tandem named the sidecar and its ready file, exited for that
// reason, and wrote it in its done file with CMD's 143 (stopped by
// SIGTERM); it returns main's sidecar-lost line.
func (pp *playedPod) sidecarLost(sidecar, main string, exitCodes map[string]int) (lost kit.Line) {
	t := pp.t
	t.Helper()
	pp.mustEnd(jobBound)
	pp.exitCodes(exitCodes)
	logs := pp.logs()
	lost = kit.MustFind(t, logs, kit.Tandem(main, "sidecar-lost"))
	if readyFile := "/run/tandem/" + sidecar + ".ready"; !lost.HasValue(sidecar) || !lost.HasValue(readyFile) {
		t.Errorf("sidecar-lost line %v; want fields naming %s and %s", lost.Fields, sidecar, readyFile)
	}
	if exit := kit.MustFind(t, logs, kit.Tandem(main, "exiting")); exit.Field("reason") != "sidecar-lost" {
		t.Errorf("%s's tandem exited with reason %q; want sidecar-lost: %v", main, exit.Field("reason"), exit.Fields)
	}
	done := pp.doneFile(main, "/run/tandem/"+main+".done")
	if done["reason"] != "sidecar-lost" || done["exitCode"] != float64(143) {
		t.Errorf("%s's done file %v; want reason sidecar-lost, exitCode 143", main, done)
	}
	return lost
}

// doneFile reads the JSON done file that ctr wrote at path, inside the
// volume mounted there, after the container ended.
func (pp *playedPod) doneFile(ctr, path string) map[string]any {
	pp.t.Helper()
	data, err := os.ReadFile(filepath.Join(pp.hostDir(ctr, filepath.Dir(path)), filepath.Base(path)))
	if err != nil {
		pp.t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		pp.t.Fatalf("%s: %v: %s", path, err, data)
	}
	return fields
}

// hostDir is the host directory of the volume mounted at dir in ctr.
func (pp *playedPod) hostDir(ctr, dir string) string {
	pp.t.Helper()
	format := `{{range .Mounts}}{{if eq .Destination "` + dir + `"}}{{.Source}}{{end}}{{end}}`
	out, _, err := podman(context.Background(), "inspect", pp.ctrName(ctr), "--format", format)
	if err != nil || strings.TrimSpace(out) == "" {
		pp.t.Fatalf("the host directory of %s in %s: %q %v", dir, ctr, out, err)
	}
	return strings.TrimSpace(out)
}

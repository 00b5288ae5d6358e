//go:build e2e

package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// budgetFlags are what a user adds to the proxy's command line that
// tandemctl inject wrote: two restarts within a minute, then give up.
var budgetFlags = []string{"--max-restarts", "2", "--restart-window", "1m"}

// lostBound is how long after the proxy's tandem gave up the export's
// tandem may take to see it lost: the lifeline tells it at once; the rest
// is room for a loaded machine.
const lostBound = 5 * time.Second

// crashingProxy is the proxy of flakySidecar, crashing with 3.
func crashingProxy(crashes int) []string { return flakySidecar("cloud-sql-proxy", 5432, 3, crashes) }

// flakySidecar is a stand-in on 127.0.0.1:port whose first run exits with
// code once it has answered one line, whose runs up to the crashes-th exit
// with code at start (a proxy that cannot refresh its token), and whose
// later runs serve. Its runs are counted in the container's /tmp, which a
// restart by tandem keeps.
func flakySidecar(name string, port, code, crashes int) []string {
	serve := fmt.Sprintf("standin serve --name %s --tcp 127.0.0.1:%d", name, port)
	return []string{"sh", "-c", fmt.Sprintf(`run=$(( $(cat /tmp/runs 2>/dev/null || echo 0) + 1 )); echo $run >/tmp/runs
echo "%s: run $run"
[ $run -eq 1 ] && exec %s --crash-after 1 --crash-code %d
[ $run -le %d ] && { echo "%s: cannot refresh the token"; exit %d; }
exec %s`, name, serve, code, crashes, name, code, serve)}
}

// budgetPod is examples/inject/job-plain.yaml with its export needing the
// proxy, injected, with budgetFlags added to the proxy and its crashes.
func budgetPod(t *testing.T, name string, crashes int) *pod {
	t.Helper()
	p := manifestPod(t, "inject/job-plain.yaml", needsPlainJob(t), name)
	p.ownVolumes(t)
	p.AddFlags("cloud-sql-proxy", budgetFlags...)
	p.Args("cloud-sql-proxy", crashingProxy(crashes)...)
	return p
}

// A proxy that crash-loops under --max-restarts 2: it crashes under the
// export's first query, then twice at start; the third crash within the
// window ends its tandem with reason restart-limit and CMD's code 3, and
// the export that needs it is stopped at once (sidecar-lost; 143) instead
// of hanging on its connection beside a crash loop.
func TestRestartBudgetSpentFailsTheMain(t *testing.T) {
	t.Parallel()
	p := budgetPod(t, "e2e-budget-spent", 99)
	p.Args("export", "sh", "-c", "standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT' && exec sleep 3600")
	pp := play(t, p)
	lost := pp.sidecarLost("cloud-sql-proxy", "export", map[string]int{"tandem-install": 0, "cloud-sql-proxy": 3, "export": 143})
	logs := pp.logs()
	limit := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "restart-limit"))
	if limit.Field("level") != "error" || limit.Num("crashes") != 3 || limit.Num("restart_window_ms") != 60000 || limit.Num("exit_code") != 3 {
		t.Errorf("restart-limit line %v; want an error naming 3 crashes within 60000 ms, exit code 3", limit.Fields)
	}
	if exit := kit.MustFind(t, logs, kit.Tandem("cloud-sql-proxy", "exiting")); exit.Field("reason") != "restart-limit" {
		t.Errorf("the proxy's tandem exited with reason %q; want restart-limit: %v", exit.Field("reason"), exit.Fields)
	}
	if n := len(filterEvents(logs, kit.Tandem("cloud-sql-proxy", "cmd-started"))); n != 3 {
		t.Errorf("the proxy's CMD started %d times; want 3", n)
	}
	kit.AssertOrder(t, logs,
		kit.Tandem("export", "sidecar-attached"),
		kit.Tandem("cloud-sql-proxy", "restarting"),
		kit.Tandem("cloud-sql-proxy", "restart-limit"),
		kit.Tandem("export", "sidecar-lost"),
		kit.Tandem("export", "exiting"),
	)
	if took := lost.At.Sub(limit.At); took > lostBound {
		t.Errorf("the export saw its proxy lost %s after the proxy gave up; want within %s", took, lostBound)
	}
	t.Logf("the export saw the proxy lost %s after its tandem gave up; the pod ended %s after that",
		lost.At.Sub(limit.At).Round(time.Microsecond), pp.finishedAt("export").Sub(limit.At).Round(time.Millisecond))
}

// The same proxy crashing twice (under the first query, then at start)
// and serving on its third run: inside the budget, nothing is lost. The
// export's second query reaches the proxy's third run, and every
// container exits 0.
func TestRestartBudgetRecoveredLosesNothing(t *testing.T) {
	t.Parallel()
	p := budgetPod(t, "e2e-budget-recovered", 2)
	p.Args("export", "sh", "-c", "standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT' && "+
		"until standin send --name pg_dump 127.0.0.1:5432 'COPY customers TO STDOUT'; do sleep 0.2; done")
	_, logs := playJob(t, p, map[string]int{"tandem-install": 0, "cloud-sql-proxy": 0, "export": 0})
	if n := len(filterEvents(logs, kit.Tandem("cloud-sql-proxy", "restarting"))); n != 2 {
		t.Errorf("the proxy's CMD was restarted %d times; want 2", n)
	}
	for _, event := range []string{"restart-limit", "sidecar-lost"} {
		if l, ok := kit.FindFunc(logs, func(l kit.Line) bool { return l.Is(event) }); ok {
			t.Errorf("%s inside the budget: %v", event, l)
		}
	}
	kit.AssertOrder(t, logs, kit.MainThenStop("export", "cloud-sql-proxy",
		kit.Tandem("export", "sidecar-attached"),
		kit.Tandem("cloud-sql-proxy", "restarting"),
	)...)
	kit.AssertPresent(t, logs,
		kit.Program("cloud-sql-proxy", "exiting 3 after 1 lines"),
		kit.Program("cloud-sql-proxy", "run 3"),
		kit.Program("cloud-sql-proxy", `received "COPY customers TO STDOUT"`),
	)
}

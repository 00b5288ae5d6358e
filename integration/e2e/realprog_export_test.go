//go:build e2e

package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// seededOrders is how many rows realprog/files/seed.sql puts in orders.
const seededOrders = 10000

// The export Job with real programs: pg_dump through pgbouncer to postgres.
// Every container exits 0, postgres shuts down cleanly once the export is
// done, and the dump holds every row.
func TestRealprogExport(t *testing.T) {
	p := realprogPod(t, "export.yaml", "realprog-export")
	out := t.TempDir()
	p.HostPath("out", out)
	pp, logs := playJob(t, p, map[string]int{"export": 0, "pgbouncer": 0, "postgres": 0})
	for _, sidecar := range []string{"pgbouncer", "postgres"} {
		kit.AssertOrder(t, logs, kit.MainThenStop("export", sidecar,
			kit.Tandem(sidecar, "cmd-started"),
			kit.Tandem("export", "cmd-started"),
		)...)
	}
	kit.AssertOrder(t, logs,
		kit.Tandem("postgres", "stop-sent"),
		kit.Program("postgres", "received fast shutdown request"),
	)
	kit.AssertOrder(t, logs,
		kit.Tandem("postgres", "stop-sent"),
		kit.Program("postgres", "database system is shut down"),
	)
	checkDump(t, filepath.Join(out, "shop.sql"))
	pp.logPodEnd(logs, "export")
}

// The failing export: pg_dump exits 1 (no such table), and that is the
// export container's code; both sidecars still stop, and exit 0.
func TestRealprogExportFails(t *testing.T) {
	p := realprogPod(t, "export.yaml", "realprog-export-fails")
	p.HostPath("out", t.TempDir())
	p.Args("export", "pg_dump", "--host", "127.0.0.1", "--port", "6432", "--username", "postgres",
		"--table", "no_such_table", "--file", "/out/shop.sql", "shop")
	pp, logs := playJob(t, p, map[string]int{"export": 1, "pgbouncer": 0, "postgres": 0})
	kit.MustFind(t, logs, kit.Program("export", "no matching tables were found"))
	for _, sidecar := range []string{"pgbouncer", "postgres"} {
		done := kit.MustFind(t, logs, kit.Tandem(sidecar, "done-seen"))
		if got := done.Field("main_exit_code"); got != "1" {
			t.Errorf("%s read exit code %q from the done file; want 1: %v", sidecar, got, done.Fields)
		}
	}
	pp.logPodEnd(logs, "export")
}

// checkDump asserts that pg_dump wrote the whole database: every row of
// orders, in order, and the closing line pg_dump writes last.
func checkDump(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the dump: %v", err)
	}
	defer f.Close()
	var rows int
	var inCopy, complete bool
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "COPY public.orders "):
			inCopy = true
		case inCopy && line == `\.`:
			inCopy = false
		case inCopy:
			rows++
			if id, _, _ := strings.Cut(line, "\t"); id != strconv.Itoa(rows) {
				t.Fatalf("dump row %d has id %s: %q", rows, id, line)
			}
		case line == "-- PostgreSQL database dump complete":
			complete = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != seededOrders || !complete {
		t.Errorf("the dump has %d rows of orders (want %d); its closing line: %v", rows, seededOrders, complete)
	}
}

// logPodEnd logs how long the pod took to end after the main's program
// exited: to the last container's end as podman recorded it, and to the
// last exit of a sidecar's tandem as it logged it.
func (pp *playedPod) logPodEnd(logs []kit.Line, main string) {
	pp.t.Helper()
	exited := kit.MustFind(pp.t, logs, kit.Tandem(main, "cmd-exited")).At
	var lastEnd, lastExit time.Time
	for _, ctr := range pp.ContainerNames() {
		if end := pp.finishedAt(ctr); end.After(lastEnd) {
			lastEnd = end
		}
		if l, ok := kit.Find(logs, kit.Tandem(ctr, "exiting")); ok && l.At.After(lastExit) {
			lastExit = l.At
		}
	}
	pp.t.Logf("pod %s: the last container ended %s after %s's program exited (the last tandem exited after %s)",
		pp.name, lastEnd.Sub(exited).Round(time.Millisecond), main, lastExit.Sub(exited).Round(time.Millisecond))
}

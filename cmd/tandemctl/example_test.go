package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "write examples/inject/job-injected.yaml instead of comparing")

// examples/inject/job-injected.yaml is what `tandemctl inject` makes of
// job-plain.yaml, with the version and image of a release ("latest").
// Regenerate it with `go test ./cmd/tandemctl -run TestExample -update`.
func TestExampleIsInjectOutput(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "inject")
	saved := version
	version = "latest"
	defer func() { version = saved }()
	out, stderr, code := run(t, "", "inject", "--resolve", "none", "--image", "ghcr.io/tandem-sh/tandem:latest", filepath.Join(dir, "job-plain.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The preset states the proxy's stop signal, so --resolve none assumes nothing.
	if want := "job/orders-export: injected (mains: export; sidecars: cloud-sql-proxy (preset cloud-sql-proxy))\n"; stderr != want {
		t.Errorf("report %q; want %q", stderr, want)
	}
	golden := filepath.Join(dir, "job-injected.yaml")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("%s is not what tandemctl inject writes today; regenerate it with -update. tandemctl wrote:\n%s", golden, out)
	}
}

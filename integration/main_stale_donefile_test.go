package integration

import (
	"slices"
	"testing"
)

// A restarted main (restartPolicy: OnFailure) must not look finished: the
// done file left by the previous run is gone before CMD starts, so a
// sidecar that starts meanwhile keeps running.
func TestMain_StaleDoneFileRemovedAtStart(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	done, seen := inDir(dir, "done"), inDir(dir, "seen")
	scWriteFile(t, done, `{"version":1,"name":"job","event":"done","exitCode":1,"signal":"","reason":"exited","time":"2026-11-30T06:00:00Z"}`+"\n")

	p := startTandem(t, procOptions{}, cmdArgs([]string{"main", "--done-file", done}, helper("sc-observe", done, seen))...)
	p.scWantExit(0, "exited")
	if got := readLines(seen); !slices.Equal(got, []string{"absent"}) {
		t.Fatalf("CMD saw the done file as %q, want absent", got)
	}
	f := scWantStatus(t, done, "done", 0, "", "exited")
	if f.Time == "2026-11-30T06:00:00Z" {
		t.Fatal("the stale done file is still there")
	}
}

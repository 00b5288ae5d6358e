package integration

import (
	"os"
	"testing"
)

// A done file without a time (written by hand, or by another tool) still
// stops the sidecar, and its done-seen line says nothing of a delay it
// cannot know: no after_file_time_ms at all, rather than the distance to
// year 1.
func TestSidecarDoneFileWithoutTime(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	p := rec.start("sidecar", "--poll-interval", "1h", "--done-file", rec.done)
	tmp := inDir(rec.dir, ".done.partial")
	scWriteFile(t, tmp, `{"version":1,"name":"job","event":"done","exitCode":0,"reason":"exited"}`+"\n")
	if err := os.Rename(tmp, rec.done); err != nil {
		t.Fatal(err)
	}
	p.scWantExit(0, "stopped")
	seen := p.waitEvent("done-seen")
	if seen.Field("main") != "job" {
		t.Fatalf("done-seen %v does not name the file's main", seen)
	}
	if v, ok := seen.Fields["after_file_time_ms"]; ok {
		t.Fatalf("done-seen says after_file_time_ms %v for a done file without a time", v)
	}
}

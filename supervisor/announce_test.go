package supervisor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

func TestAnnounceDone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done")
	err := AnnounceDone(context.Background(), DoneOptions{File: path, ExitCode: 4, Name: "script", Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	f, present, err := statusfile.Read(path)
	if !present || err != nil || f.ExitCode != 4 || f.Reason != "announced" || f.Name != "script" {
		t.Fatalf("done file %+v, %v, %v", f, present, err)
	}
	for _, bad := range []DoneOptions{{}, {File: path, ExitCode: 256}} {
		if err := AnnounceDone(context.Background(), bad); exitcode.Of(err) != exitcode.Usage || exitcode.Logged(err) {
			t.Errorf("%+v: %v (code %d), want a usage error", bad, err, exitcode.Of(err))
		}
	}
}

func TestWaitFor(t *testing.T) {
	dir := t.TempDir()
	present, _ := probe.Parse("file:" + dir)
	absent, _ := probe.Parse("file:" + filepath.Join(dir, "absent"))
	opts := WaitOptions{Conditions: []probe.Condition{present}, Interval: 10 * time.Millisecond, Log: zerolog.Nop()}
	if err := WaitFor(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	opts.Conditions, opts.Timeout = []probe.Condition{present, absent}, 30*time.Millisecond
	if err := WaitFor(context.Background(), opts); exitcode.Of(err) != exitcode.Timeout {
		t.Fatalf("%v (code %d), want a timeout naming the condition", err, exitcode.Of(err))
	}
	for _, bad := range []WaitOptions{{}, {Conditions: opts.Conditions}, {Conditions: opts.Conditions, Interval: 1, Timeout: -1}} {
		if err := WaitFor(context.Background(), bad); exitcode.Of(err) != exitcode.Usage {
			t.Errorf("%+v: %v, want a usage error", bad, err)
		}
	}
}

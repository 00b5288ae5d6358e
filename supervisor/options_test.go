package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/internal/testkit"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

func TestAnnounceDoneUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		opts DoneOptions
		want string
	}{
		{"nothing to announce", DoneOptions{}, "nothing to announce"},
		{"exit code too big", DoneOptions{File: "/x", ExitCode: 256}, "256"},
		{"exit code negative", DoneOptions{File: "/x", ExitCode: -1}, "-1"},
		{"peer timeout zero", DoneOptions{Peers: peers.Options{Enabled: true}}, "--peer-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			if err := opts.validate(); err == nil || exitcode.Of(err) != exitcode.Internal {
				t.Errorf("Validate: %v (code %d), want a plain error", err, exitcode.Of(err))
			}
			err := AnnounceDone(context.Background(), opts)
			if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("AnnounceDone: %v (code %d), want exit 2 naming %q", err, exitcode.Of(err), tt.want)
			}
		})
	}
}

func TestWaitForUsageErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	tests := []struct {
		name string
		opts WaitOptions
		want string
	}{
		{"nothing to wait for", WaitOptions{Interval: time.Second}, "--for"},
		{"interval zero", WaitOptions{Conditions: testkit.Parsed(t, probe.Parse, "file:"+file)}, "--interval 0s"},
		{"timeout negative", WaitOptions{Conditions: testkit.Parsed(t, probe.Parse, "file:"+file), Interval: time.Second, Timeout: -time.Second},
			"--timeout -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WaitFor(context.Background(), tt.opts)
			if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("WaitFor: %v (code %d), want exit 2 naming %q", err, exitcode.Of(err), tt.want)
			}
		})
	}
}

func TestWaitForHoldsAndTimesOut(t *testing.T) {
	dir := t.TempDir()
	present, missing := filepath.Join(dir, "present"), filepath.Join(dir, "missing")
	if err := os.WriteFile(present, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := WaitOptions{Conditions: testkit.Parsed(t, probe.Parse, "file:"+present), Interval: time.Millisecond, Log: zerolog.Nop()}
	if err := WaitFor(context.Background(), opts); err != nil {
		t.Errorf("a file that exists: %v", err)
	}
	// A file nobody creates: the timeout always comes first.
	opts.Conditions = testkit.Parsed(t, probe.Parse, "file:"+present, "file:"+missing)
	opts.Timeout = time.Millisecond
	err := WaitFor(context.Background(), opts)
	if exitcode.Of(err) != exitcode.Timeout || !strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), "file:"+present) {
		t.Errorf("WaitFor: %v (code %d), want exit 1 naming only %s", err, exitcode.Of(err), missing)
	}
}

package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/testkit"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

const quitURL = "http://127.0.0.1:15020/quitquitquit"

func TestSidecarFlags(t *testing.T) {
	sc := func(args ...string) []string { return append(append([]string{"sidecar"}, args...), "--", "x") }
	env := func(k, v string) map[string]string { return map[string]string{k: v} }
	every := func(c *supervisor.Config) {
		s := &c.Sidecar
		s.DoneFiles, s.DoneSignal, s.StopWhen = []string{"/a", "/b"}, unix.SIGUSR1, supervisor.StopWhenSuccess
		s.QuitURLs, s.TerminationSignal, s.OutliveMain = testkit.Parsed(t, probe.ParseURL, quitURL, "http://h/q"), unix.SIGQUIT, time.Minute
		s.ReadyWhen, s.ReadyFile = testkit.Parsed(t, probe.Parse, "file:/r", "tcp:127.0.0.1:80"), "/ready"
		s.Restart, s.PollInterval, s.StopDelay = supervisor.RestartOnFailure, 2*time.Second, 3*time.Second
		s.StoppedFile, s.MainStartTimeout, s.AwaitTermination = "/stopped", 4*time.Minute, true
	}
	runConfigCases(t, supervisor.ModeSidecar, []configCase{
		{name: "every flag", args: sc("--done-file", "/a", "--done-file", "/b", "--done-signal", "USR1", "--stop-when", "success",
			"--quit-url", quitURL, "--quit-url", "http://h/q", "--termination-signal", "QUIT", "--outlive-main", "1m",
			"--ready-when", "file:/r", "--ready-when", "tcp:127.0.0.1:80", "--ready-file", "/ready", "--restart", "on-failure",
			"--poll-interval", "2s", "--stop-delay", "3s", "--stopped-file", "/stopped", "--main-start-timeout", "4m",
			"--await-termination"),
			want: every},
		{name: "every variable", env: map[string]string{"TANDEM_DONE_FILE": "/a,/b", "TANDEM_DONE_SIGNAL": "USR1",
			"TANDEM_STOP_WHEN": "success", "TANDEM_QUIT_URL": quitURL + ",http://h/q", "TANDEM_TERMINATION_SIGNAL": "QUIT",
			"TANDEM_OUTLIVE_MAIN": "1m", "TANDEM_READY_WHEN": "file:/r,tcp:127.0.0.1:80", "TANDEM_READY_FILE": "/ready",
			"TANDEM_RESTART": "on-failure", "TANDEM_POLL_INTERVAL": "2s", "TANDEM_STOP_DELAY": "3s",
			"TANDEM_STOPPED_FILE": "/stopped", "TANDEM_MAIN_START_TIMEOUT": "4m", "TANDEM_AWAIT_TERMINATION": "true"},
			args: sc(), want: every},
		{name: "restart always", args: sc("--restart", "always"),
			want: func(c *supervisor.Config) { c.Sidecar.Restart = supervisor.RestartAlways }},
		{name: "restart never", env: env("TANDEM_RESTART", "always"), args: sc("--restart", "never")},
		{name: "stop when any", env: env("TANDEM_STOP_WHEN", "success"), args: sc("--stop-when", "any")},
		{name: "flag replaces the env list", env: env("TANDEM_DONE_FILE", "/a,/b"), args: sc("--done-file", "/c"),
			want: func(c *supervisor.Config) { c.Sidecar.DoneFiles = []string{"/c"} }},
		{name: "done signal number", args: sc("--done-signal", "10"),
			want: func(c *supervisor.Config) { c.Sidecar.DoneSignal = unix.SIGUSR1 }},
		// The main's flags are not read in sidecar mode.
		{name: "main defaults kept", env: env("TANDEM_WAIT_TIMEOUT", "1s"), args: sc()},
	})
}

func TestMainFlags(t *testing.T) {
	mn := func(args ...string) []string { return append(append([]string{"main"}, args...), "--", "x") }
	every := func(c *supervisor.Config) {
		m := &c.Main
		m.WaitFor, m.WaitTimeout, m.WaitInterval = testkit.Parsed(t, probe.Parse, "file:/w", "http://h:8080/ready"), time.Minute, time.Second
		m.DoneFile, m.QuitURLs, m.DoneSignal = "/done", testkit.Parsed(t, probe.ParseURL, quitURL), unix.SIGUSR1
		m.Peers.Enabled, m.Peers.Names, m.Peers.Timeout = true, []string{"a", "b"}, 5*time.Second
	}
	runConfigCases(t, supervisor.ModeMain, []configCase{
		{name: "every flag", args: mn("--wait-for", "file:/w", "--wait-for", "http://h:8080/ready", "--wait-timeout", "1m",
			"--wait-interval", "1s", "--done-file", "/done", "--quit-url", quitURL, "--done-signal", "USR1",
			"--signal-peers", "--peer", "a", "--peer", "b", "--peer-timeout", "5s"),
			want: every},
		{name: "every variable", env: map[string]string{"TANDEM_WAIT_FOR": "file:/w,http://h:8080/ready",
			"TANDEM_WAIT_TIMEOUT": "1m", "TANDEM_WAIT_INTERVAL": "1s", "TANDEM_DONE_FILE": "/done", "TANDEM_QUIT_URL": quitURL,
			"TANDEM_DONE_SIGNAL": "USR1", "TANDEM_SIGNAL_PEERS": "true", "TANDEM_PEER": "a,b", "TANDEM_PEER_TIMEOUT": "5s"},
			args: mn(), want: every},
		{name: "signal peers", args: mn("--signal-peers"), want: func(c *supervisor.Config) { c.Main.Peers.Enabled = true }},
		{name: "a peer implies signal peers", args: mn("--peer", "a"),
			want: func(c *supervisor.Config) { c.Main.Peers.Enabled, c.Main.Peers.Names = true, []string{"a"} }},
		{name: "needs", args: mn("--needs", "/r/a.ready", "--needs", "/r/b.ready"),
			want: func(c *supervisor.Config) { c.Main.Needs = []string{"/r/a.ready", "/r/b.ready"} }},
		{name: "needs from its variable", env: map[string]string{"TANDEM_NEEDS": "/r/a.ready,/r/b.ready"}, args: mn(),
			want: func(c *supervisor.Config) { c.Main.Needs = []string{"/r/a.ready", "/r/b.ready"} }},
		{name: "name before main", args: []string{"--name", "job", "main", "--done-file", "/done", "--", "x"},
			want: func(c *supervisor.Config) { c.Name, c.Main.DoneFile = "job", "/done" }},
		// The sidecar's flags are not read in main mode.
		{name: "sidecar defaults kept", env: map[string]string{"TANDEM_POLL_INTERVAL": "9s", "TANDEM_RESTART": "always"}, args: mn()},
	})
}

func TestDoneFlags(t *testing.T) {
	defaults := supervisor.DoneOptions{DoneSignal: unix.SIGUSR2}
	defaults.Peers.Timeout = supervisor.DefaultPeerTimeout
	every := defaults
	every.File, every.ExitCode, every.Name, every.DoneSignal = "/done", 3, "job", unix.SIGUSR1
	every.Peers.Enabled, every.Peers.Names, every.Peers.Timeout = true, []string{"a"}, 5*time.Second
	withFile := defaults
	withFile.File = "/done"
	named := withFile
	named.Name = "job"
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want supervisor.DoneOptions
	}{
		{"defaults", nil, []string{"done"}, defaults},
		{"every flag", nil, []string{"done", "--file", "/done", "--exit-code", "3", "--name", "job", "--done-signal", "USR1",
			"--signal-peers", "--peer", "a", "--peer-timeout", "5s"}, every},
		{"every variable", map[string]string{"TANDEM_FILE": "/done", "TANDEM_EXIT_CODE": "3", "TANDEM_NAME": "job",
			"TANDEM_DONE_SIGNAL": "USR1", "TANDEM_SIGNAL_PEERS": "1", "TANDEM_PEER": "a", "TANDEM_PEER_TIMEOUT": "5s"},
			[]string{"done"}, every},
		{"name before done", nil, []string{"--name", "job", "done", "--file", "/done"}, named},
		{"name before done beats env", map[string]string{"TANDEM_NAME": "env"}, []string{"--name", "job", "done", "--file", "/done"}, named},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustRunApp(t, tt.env, tt.args...)
			if got.done == nil {
				t.Fatal("AnnounceDone was not called")
			}
			opts := *got.done
			opts.Log = zerolog.Logger{}
			nilIfEmpty(&opts.Peers.Names)
			if !reflect.DeepEqual(opts, tt.want) {
				t.Errorf("options\n got %+v\nwant %+v", opts, tt.want)
			}
		})
	}
}

func TestWaitFlags(t *testing.T) {
	for _, tt := range []struct {
		name     string
		env      map[string]string
		args     []string
		conds    []string
		interval time.Duration
		timeout  time.Duration
	}{
		{"defaults", nil, []string{"wait"}, nil, supervisor.DefaultWaitInterval, 0},
		{"every flag", nil, []string{"wait", "--for", "file:/a", "--for", "tcp:127.0.0.1:5432", "--interval", "1s", "--timeout", "1m"},
			[]string{"file:/a", "tcp:127.0.0.1:5432"}, time.Second, time.Minute},
		{"every variable", map[string]string{"TANDEM_FOR": "file:/a,tcp:127.0.0.1:5432", "TANDEM_INTERVAL": "1s", "TANDEM_TIMEOUT": "1m"},
			[]string{"wait"}, []string{"file:/a", "tcp:127.0.0.1:5432"}, time.Second, time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustRunApp(t, tt.env, tt.args...)
			if got.wait == nil {
				t.Fatal("WaitFor was not called")
			}
			if names := probe.Names(got.wait.Conditions); names != probe.Names(testkit.Parsed(t, probe.Parse, tt.conds...)) {
				t.Errorf("conditions %q, want %q", names, tt.conds)
			}
			if got.wait.Interval != tt.interval || got.wait.Timeout != tt.timeout {
				t.Errorf("interval %s timeout %s, want %s and %s", got.wait.Interval, got.wait.Timeout, tt.interval, tt.timeout)
			}
		})
	}
}

package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/testkit"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// TestCommandLineRoundTrip holds tandem's command line together across
// processes: for every flag that crosses one, what the builders of
// internal/cmdline write (tandemctl's injection uses them), this app accepts
// and turns into the expected config, and the parser supervisor/peers reads
// other tandems' /proc/PID/cmdline with reads back the same values. A flag
// renamed in one of the three places only fails here. A new flag is one row.
func TestCommandLineRoundTrip(t *testing.T) {
	const bin = "/run/tandem/tandem"
	for _, tt := range []struct {
		name string
		argv []string           // from a builder; CMD "x" follows the "--"
		want captured           // what the app hands the supervisor
		peer cmdline.Invocation // what supervisor/peers reads of the argv
	}{
		{name: "run --name",
			argv: cmdline.Run{Binary: bin, Name: "proxy"}.Argv(),
			want: config(supervisor.ModeRun, func(c *supervisor.Config) { c.Name = "proxy" }),
			peer: cmdline.Invocation{Command: cmdline.CmdRun, Name: "proxy"}},
		{name: "main --name",
			argv: cmdline.Main{Binary: bin, Name: "job"}.Argv(),
			want: config(supervisor.ModeMain, func(c *supervisor.Config) { c.Name = "job" }),
			peer: cmdline.Invocation{Command: cmdline.CmdMain, Name: "job"}},
		{name: "main --done-file",
			argv: cmdline.Main{Binary: bin, DoneFile: "/run/tandem/job.done"}.Argv(),
			want: config(supervisor.ModeMain, func(c *supervisor.Config) { c.Main.DoneFile = "/run/tandem/job.done" }),
			peer: cmdline.Invocation{Command: cmdline.CmdMain}},
		{name: "main --signal-peers",
			argv: cmdline.Main{Binary: bin, SignalPeers: true}.Argv(),
			want: config(supervisor.ModeMain, func(c *supervisor.Config) { c.Main.Peers.Enabled = true }),
			peer: cmdline.Invocation{Command: cmdline.CmdMain, SignalPeers: true}},
		{name: "main --peer",
			argv: cmdline.Main{Binary: bin, Peers: []string{"proxy", "db"}}.Argv(),
			want: config(supervisor.ModeMain, func(c *supervisor.Config) {
				c.Main.Peers.Enabled, c.Main.Peers.Names = true, []string{"proxy", "db"}
			}),
			peer: cmdline.Invocation{Command: cmdline.CmdMain, Peers: []string{"proxy", "db"}}},
		{name: "main --done-signal",
			argv: cmdline.Main{Binary: bin, DoneSignal: "USR1"}.Argv(),
			want: config(supervisor.ModeMain, func(c *supervisor.Config) { c.Main.DoneSignal = unix.SIGUSR1 }),
			peer: cmdline.Invocation{Command: cmdline.CmdMain}},
		{name: "main --needs",
			argv: cmdline.Main{Binary: bin, Needs: []string{"/run/tandem/db-proxy.ready", "/run/tandem/cache.ready"}}.Argv(),
			want: config(supervisor.ModeMain, func(c *supervisor.Config) {
				c.Main.Needs = []string{"/run/tandem/db-proxy.ready", "/run/tandem/cache.ready"}
			}),
			peer: cmdline.Invocation{Command: cmdline.CmdMain}},
		{name: "main, all of them",
			argv: cmdline.Main{Binary: bin, Name: "job", DoneFile: "/d", SignalPeers: true, Peers: []string{"proxy"}, DoneSignal: "USR1"}.Argv(),
			want: config(supervisor.ModeMain, func(c *supervisor.Config) {
				c.Name, c.Main.DoneFile, c.Main.DoneSignal = "job", "/d", unix.SIGUSR1
				c.Main.Peers.Enabled, c.Main.Peers.Names = true, []string{"proxy"}
			}),
			peer: cmdline.Invocation{Command: cmdline.CmdMain, Name: "job", SignalPeers: true, Peers: []string{"proxy"}}},
		{name: "sidecar --name",
			argv: cmdline.Sidecar{Binary: bin, Name: "proxy"}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) { c.Name = "proxy" }),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar, Name: "proxy"}},
		{name: "sidecar --done-file",
			argv: cmdline.Sidecar{Binary: bin, DoneFiles: []string{"/run/tandem/a.done", "/run/tandem/b.done"}}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) {
				c.Sidecar.DoneFiles = []string{"/run/tandem/a.done", "/run/tandem/b.done"}
			}),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "sidecar --ready-file --ready-when",
			argv: cmdline.Sidecar{Binary: bin, ReadyFile: "/run/tandem/proxy.ready", ReadyWhen: []string{"tcp:127.0.0.1:5432"}}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) {
				c.Sidecar.ReadyFile, c.Sidecar.ReadyWhen = "/run/tandem/proxy.ready", testkit.Parsed(t, probe.Parse, "tcp:127.0.0.1:5432")
			}),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "sidecar --stop-when",
			argv: cmdline.Sidecar{Binary: bin, StopWhen: cmdline.StopWhenSuccess}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) { c.Sidecar.StopWhen = supervisor.StopWhenSuccess }),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "sidecar --outlive-main",
			argv: cmdline.Sidecar{Binary: bin, OutliveMain: 90 * time.Second}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) { c.Sidecar.OutliveMain = 90 * time.Second }),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "sidecar --termination-signal",
			argv: cmdline.Sidecar{Binary: bin, TerminationSignal: "QUIT"}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) { c.Sidecar.TerminationSignal = unix.SIGQUIT }),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "sidecar --done-signal",
			argv: cmdline.Sidecar{Binary: bin, DoneSignal: "USR1"}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) { c.Sidecar.DoneSignal = unix.SIGUSR1 }),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "main --termination-grace",
			argv: cmdline.Main{Binary: bin, TerminationGrace: 25 * time.Second}.Argv(),
			want: config(supervisor.ModeMain, func(c *supervisor.Config) { c.Main.TerminationGrace = 25 * time.Second }),
			peer: cmdline.Invocation{Command: cmdline.CmdMain}},
		{name: "sidecar --grace",
			argv: cmdline.Sidecar{Binary: bin, Grace: 5 * time.Second}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) { c.Grace = 5 * time.Second }),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "sidecar --restart",
			argv: cmdline.Sidecar{Binary: bin, Restart: cmdline.RestartAlways}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) { c.Sidecar.Restart = supervisor.RestartAlways }),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "sidecar --stopped-file",
			argv: cmdline.Sidecar{Binary: bin, StoppedFile: "/run/tandem/cache.stopped"}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) { c.Sidecar.StoppedFile = "/run/tandem/cache.stopped" }),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "sidecar --main-start-timeout",
			argv: cmdline.Sidecar{Binary: bin, MainStartTimeout: 10 * time.Minute}.Argv(),
			want: config(supervisor.ModeSidecar, func(c *supervisor.Config) { c.Sidecar.MainStartTimeout = 10 * time.Minute }),
			peer: cmdline.Invocation{Command: cmdline.CmdSidecar}},
		{name: "wait --for --timeout",
			argv: cmdline.Wait{Binary: bin, For: []string{"tcp:127.0.0.1:5432", "http://127.0.0.1:8080/ready"}, Timeout: 45 * time.Second}.Argv(),
			want: captured{wait: &supervisor.WaitOptions{Conditions: testkit.Parsed(t, probe.Parse, "tcp:127.0.0.1:5432", "http://127.0.0.1:8080/ready"),
				Interval: supervisor.DefaultWaitInterval, Timeout: 45 * time.Second}},
			peer: cmdline.Invocation{Command: cmdline.CmdWait}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.argv[1:]
			if args[len(args)-1] == "--" {
				args = append(args, "x")
			}
			got := mustRunApp(t, nil, args...)
			assertCaptured(t, got, tt.want)
			proc := []byte(strings.Join(append(tt.argv, "x", ""), "\x00")) // /proc ends each argument with NUL
			if peer, ok := cmdline.ParseProc(proc); !ok || !reflect.DeepEqual(peer, tt.peer) {
				t.Errorf("peers read %q as %+v, %v; want %+v", proc, peer, ok, tt.peer)
			}
		})
	}
}

// config is Defaults(mode) as the app fills it for CMD x, changed by change.
func config(mode supervisor.Mode, change func(*supervisor.Config)) captured {
	cfg := wantConfig(mode, change)
	return captured{cfg: &cfg}
}

// assertCaptured compares what the app handed the supervisor, the loggers
// aside.
func assertCaptured(t *testing.T, got, want captured) {
	t.Helper()
	if want.cfg != nil {
		assertConfig(t, got.cfg, *want.cfg)
		return
	}
	if got.wait == nil {
		t.Fatalf("the app handed %+v, want wait options", got)
	}
	w := *got.wait
	w.Log = want.wait.Log
	if !reflect.DeepEqual(w, *want.wait) {
		t.Errorf("wait options\n got %+v\nwant %+v", w, *want.wait)
	}
}

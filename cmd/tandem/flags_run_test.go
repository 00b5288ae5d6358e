package main

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor"
)

// configCase is one command line (and environment) and the config it must
// give: the mode's defaults changed by want.
type configCase struct {
	name string
	env  map[string]string
	args []string
	want func(*supervisor.Config)
}

func runConfigCases(t *testing.T, mode supervisor.Mode, cases []configCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got := mustRunApp(t, tt.env, tt.args...)
			assertConfig(t, got.cfg, wantConfig(mode, tt.want))
		})
	}
}

// TestSupervisionFlags: the flags run, sidecar and main share, given after
// the command name, before it, in the bare form, or as TANDEM_<FLAG>.
func TestSupervisionFlags(t *testing.T) {
	grace5 := func(c *supervisor.Config) { c.Grace = 5 * time.Second }
	runConfigCases(t, supervisor.ModeRun, []configCase{
		{name: "defaults", args: []string{"run", "--", "x"}},
		{name: "bare defaults", args: []string{"--", "x"}},
		{name: "CMD args kept", args: []string{"run", "--", "x", "-y", "--", "z"},
			want: func(c *supervisor.Config) { c.Command = []string{"x", "-y", "--", "z"} }},
		{name: "grace", args: []string{"run", "--grace", "5s", "--", "x"}, want: grace5},
		{name: "grace zero", args: []string{"run", "--grace", "0", "--", "x"}, want: func(c *supervisor.Config) { c.Grace = 0 }},
		{name: "stop signal name", args: []string{"run", "--stop-signal", "QUIT", "--", "x"},
			want: func(c *supervisor.Config) { c.StopSignal = unix.SIGQUIT }},
		{name: "stop signal number", args: []string{"run", "--stop-signal", "2", "--", "x"},
			want: func(c *supervisor.Config) { c.StopSignal = unix.SIGINT }},
		{name: "rewrite twice and drop", args: []string{"run", "--rewrite", "TERM:QUIT", "--rewrite", "SIGHUP:0", "--", "x"},
			want: func(c *supervisor.Config) {
				c.Rewrite = map[unix.Signal]unix.Signal{unix.SIGTERM: unix.SIGQUIT, unix.SIGHUP: 0}
			}},
		{name: "child only", args: []string{"run", "--child-only", "--", "x"}, want: func(c *supervisor.Config) { c.ChildOnly = true }},
		{name: "success codes", args: []string{"run", "--success-code", "3", "--success-code", "143", "--", "x"},
			want: func(c *supervisor.Config) { c.SuccessCodes = []int{3, 143} }},
		{name: "termination log", args: []string{"run", "--termination-log", "/tl", "--", "x"},
			want: func(c *supervisor.Config) { c.TerminationLog = "/tl" }},
		{name: "termination log empty disables", args: []string{"run", "--termination-log", "", "--", "x"},
			want: func(c *supervisor.Config) { c.TerminationLog = "" }},
		{name: "name", args: []string{"run", "--name", "web", "--", "x"}, want: func(c *supervisor.Config) { c.Name = "web" }},

		{name: "env grace", env: map[string]string{"TANDEM_GRACE": "5s"}, args: []string{"run", "--", "x"}, want: grace5},
		{name: "env stop signal", env: map[string]string{"TANDEM_STOP_SIGNAL": "INT"}, args: []string{"run", "--", "x"},
			want: func(c *supervisor.Config) { c.StopSignal = unix.SIGINT }},
		{name: "env rewrite list", env: map[string]string{"TANDEM_REWRITE": "TERM:QUIT,INT:USR2"}, args: []string{"run", "--", "x"},
			want: func(c *supervisor.Config) {
				c.Rewrite = map[unix.Signal]unix.Signal{unix.SIGTERM: unix.SIGQUIT, unix.SIGINT: unix.SIGUSR2}
			}},
		{name: "env child only", env: map[string]string{"TANDEM_CHILD_ONLY": "true"}, args: []string{"run", "--", "x"},
			want: func(c *supervisor.Config) { c.ChildOnly = true }},
		{name: "env success codes", env: map[string]string{"TANDEM_SUCCESS_CODE": "3,4"}, args: []string{"run", "--", "x"},
			want: func(c *supervisor.Config) { c.SuccessCodes = []int{3, 4} }},
		{name: "env termination log", env: map[string]string{"TANDEM_TERMINATION_LOG": "/tl"}, args: []string{"run", "--", "x"},
			want: func(c *supervisor.Config) { c.TerminationLog = "/tl" }},
		{name: "env name", env: map[string]string{"TANDEM_NAME": "web"}, args: []string{"run", "--", "x"},
			want: func(c *supervisor.Config) { c.Name = "web" }},
		{name: "env in the bare form", env: map[string]string{"TANDEM_GRACE": "5s"}, args: []string{"--", "x"}, want: grace5},
		{name: "flag beats env", env: map[string]string{"TANDEM_GRACE": "7s"}, args: []string{"run", "--grace", "5s", "--", "x"}, want: grace5},

		{name: "grace before run", args: []string{"--grace", "5s", "run", "--", "x"}, want: grace5},
		{name: "name before run", args: []string{"--name", "web", "run", "--", "x"}, want: func(c *supervisor.Config) { c.Name = "web" }},
		{name: "every flag before run", args: []string{"--stop-signal", "QUIT", "--rewrite", "TERM:0", "--child-only",
			"--success-code", "3", "--termination-log", "/tl", "run", "--", "x"},
			want: func(c *supervisor.Config) {
				c.StopSignal, c.ChildOnly, c.SuccessCodes, c.TerminationLog = unix.SIGQUIT, true, []int{3}, "/tl"
				c.Rewrite = map[unix.Signal]unix.Signal{unix.SIGTERM: 0}
			}},
		{name: "bare form flags", args: []string{"--grace", "5s", "--", "x"}, want: grace5},
		{name: "after the command wins", args: []string{"--grace", "7s", "run", "--grace", "5s", "--", "x"}, want: grace5},
		{name: "a list after the command replaces the one before", args: []string{"--success-code", "3", "run", "--success-code", "4", "--", "x"},
			want: func(c *supervisor.Config) { c.SuccessCodes = []int{4} }},
		{name: "rewrites after the command replace the variable's and those before",
			env: map[string]string{"TANDEM_REWRITE": "TERM:QUIT"}, args: []string{"--rewrite", "TERM:HUP", "run", "--rewrite", "TERM:INT", "--", "x"},
			want: func(c *supervisor.Config) { c.Rewrite = map[unix.Signal]unix.Signal{unix.SIGTERM: unix.SIGINT} }},
		{name: "rewrites on the command line replace the variable's",
			env: map[string]string{"TANDEM_REWRITE": "TERM:QUIT"}, args: []string{"run", "--rewrite", "TERM:INT", "--", "x"},
			want: func(c *supervisor.Config) { c.Rewrite = map[unix.Signal]unix.Signal{unix.SIGTERM: unix.SIGINT} }},
		{name: "flag before the command beats env", env: map[string]string{"TANDEM_GRACE": "7s", "TANDEM_SUCCESS_CODE": "4"},
			args: []string{"--grace", "5s", "--success-code", "3", "run", "--", "x"},
			want: func(c *supervisor.Config) { c.Grace, c.SuccessCodes = 5*time.Second, []int{3} }},
	})
}

// TestSupervisionFlagsInEveryMode: sidecar and main read the shared flags
// the same way, before or after their name.
func TestSupervisionFlagsInEveryMode(t *testing.T) {
	for _, mode := range []supervisor.Mode{supervisor.ModeSidecar, supervisor.ModeMain} {
		t.Run(mode.String(), func(t *testing.T) {
			runConfigCases(t, mode, []configCase{
				{name: "defaults", args: []string{mode.String(), "--", "x"}},
				{name: "after", args: []string{mode.String(), "--grace", "5s", "--name", "web", "--stop-signal", "INT", "--", "x"},
					want: func(c *supervisor.Config) { c.Grace, c.Name, c.StopSignal = 5*time.Second, "web", unix.SIGINT }},
				{name: "before", args: []string{"--grace", "5s", "--name", "web", "--stop-signal", "INT", mode.String(), "--", "x"},
					want: func(c *supervisor.Config) { c.Grace, c.Name, c.StopSignal = 5*time.Second, "web", unix.SIGINT }},
				{name: "env", env: map[string]string{"TANDEM_GRACE": "5s", "TANDEM_NAME": "web"}, args: []string{mode.String(), "--", "x"},
					want: func(c *supervisor.Config) { c.Grace, c.Name = 5*time.Second, "web" }},
			})
		})
	}
}

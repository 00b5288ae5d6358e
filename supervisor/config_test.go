package supervisor

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/internal/testkit"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// validConfig is a config of mode m that Validate accepts: the defaults and a
// CMD.
func validConfig(m Mode) Config {
	cfg := Defaults(m)
	cfg.Command = []string{"/bin/true"}
	return cfg
}

func TestValidateRejectsAndNamesTheValue(t *testing.T) {
	tests := []struct {
		name   string
		mode   Mode
		change func(*Config)
		want   []string // substrings of the error: the flag and the value
	}{
		{"missing CMD", ModeSidecar, func(c *Config) { c.Command = nil }, []string{"missing CMD", "tandem sidecar"}},
		{"missing CMD run", ModeRun, func(c *Config) { c.Command = []string{} }, []string{"missing CMD", "tandem run"}},
		{"ready-when without ready-file", ModeSidecar, func(c *Config) {
			c.Sidecar.ReadyWhen = testkit.Parsed(t, probe.Parse, "file:/x")
		}, []string{"--ready-when", "--ready-file"}},
		{"termination signal KILL", ModeSidecar, func(c *Config) { c.Sidecar.TerminationSignal = unix.SIGKILL },
			[]string{"--termination-signal", "SIGKILL"}},
		{"done signal TERM", ModeSidecar, func(c *Config) { c.Sidecar.DoneSignal = unix.SIGTERM }, []string{"--done-signal", "SIGTERM"}},
		{"done signal KILL", ModeSidecar, func(c *Config) { c.Sidecar.DoneSignal = unix.SIGKILL }, []string{"--done-signal", "SIGKILL"}},
		{"done signal CHLD", ModeSidecar, func(c *Config) { c.Sidecar.DoneSignal = unix.SIGCHLD }, []string{"--done-signal", "SIGCHLD"}},
		{"max-restarts without restart", ModeSidecar, func(c *Config) { c.Sidecar.MaxRestarts = 3 },
			[]string{"--max-restarts 3", "--restart on-failure or always"}},
		{"restart window without max-restarts", ModeSidecar, func(c *Config) {
			c.Sidecar.Restart, c.Sidecar.RestartWindow = RestartAlways, 5*time.Minute
		}, []string{"--restart-window 5m0s", "without --max-restarts"}},
		{"ready file is a done file", ModeSidecar, func(c *Config) {
			c.Sidecar.DoneFiles, c.Sidecar.ReadyFile = []string{"/run/a", "/run/b"}, "/run/./b"
		}, []string{`--ready-file "/run/./b" is also a --done-file`}},
		{"stopped file is the ready file", ModeSidecar, func(c *Config) {
			c.Sidecar.ReadyFile, c.Sidecar.StoppedFile = "/run/r", "/run//r"
		}, []string{`--stopped-file "/run//r" is also the --ready-file`}},
		{"needs twice", ModeMain, func(c *Config) { c.Main.Needs = []string{"/run/a.ready", "/run/b.ready", "/run/a.ready"} },
			[]string{`--needs "/run/a.ready": given twice`}},
		{"needs twice, spelled two ways", ModeMain, func(c *Config) { c.Main.Needs = []string{"/run/a.ready", "/run/b.ready", "/run//a.ready"} },
			[]string{`--needs "/run//a.ready": the same file as --needs "/run/a.ready"`}},
		{"done signal is the termination signal", ModeSidecar, func(c *Config) {
			c.Sidecar.TerminationSignal, c.Sidecar.DoneSignal = unix.SIGQUIT, unix.SIGQUIT
		}, []string{"--done-signal", "SIGQUIT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := validConfig(tt.mode)
			tt.change(&cfg)
			err := cfg.validate()
			if err == nil {
				t.Fatal("Validate accepted it")
			}
			// Validate is pure: the exit code is Run's business.
			if code := exitcode.Of(err); code != exitcode.Internal {
				t.Errorf("Validate's error carries exit code %d; want a plain error (125 unwrapped)", code)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
}

func TestValidateAcceptsEdges(t *testing.T) {
	for _, m := range []Mode{ModeRun, ModeSidecar, ModeMain} {
		cfg := validConfig(m)
		cfg.Grace = 0 // stop at once: allowed
		cfg.SuccessCodes = []int{0, 255}
		cfg.Sidecar.ReadyWhen = testkit.Parsed(t, probe.Parse, "file:/x")
		cfg.Sidecar.ReadyFile = "/ready"
		if err := cfg.validate(); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	// Settings of other modes are not checked: run ignores the sidecar's
	// and the main's.
	cfg := validConfig(ModeRun)
	cfg.Sidecar.ReadyWhen, cfg.Main.Needs, cfg.Sidecar.DoneSignal = testkit.Parsed(t, probe.Parse, "file:/x"), []string{""}, unix.SIGTERM
	if err := cfg.validate(); err != nil {
		t.Errorf("run with sidecar and main settings broken: %v", err)
	}
	cfg = validConfig(ModeSidecar)
	cfg.Main.Needs = []string{""}
	if err := cfg.validate(); err != nil {
		t.Errorf("sidecar with a main setting broken: %v", err)
	}
}

// TestValidateIsPure: Validate neither fills defaults nor changes anything,
// accepted or not.
func TestValidateIsPure(t *testing.T) {
	build := func(m Mode) Config {
		cfg := validConfig(m)
		cfg.Rewrite = map[unix.Signal]unix.Signal{unix.SIGHUP: 0, unix.SIGTERM: unix.SIGQUIT}
		cfg.SuccessCodes = []int{3, 4}
		cfg.Sidecar.DoneFiles = []string{"/a", "/b"}
		return cfg
	}
	for _, m := range []Mode{ModeRun, ModeSidecar, ModeMain} {
		cfg := build(m)
		if err := cfg.validate(); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if !reflect.DeepEqual(cfg, build(m)) {
			t.Errorf("%s: Validate changed the config:\n%+v\nwant\n%+v", m, cfg, build(m))
		}
	}
	// A zero config is not given defaults: it is refused as it is.
	bare := Config{Mode: ModeSidecar, Command: []string{"/bin/true"}}
	if err := bare.validate(); err == nil || !strings.Contains(err.Error(), "--termination-signal") {
		t.Errorf("a config without a termination signal: %v, want an error naming --termination-signal", err)
	}
	if bare.StopSignal != 0 || bare.Grace != 0 {
		t.Errorf("Validate filled defaults into the config: stop %v grace %s", bare.StopSignal, bare.Grace)
	}
}

func TestDefaults(t *testing.T) {
	for _, m := range []Mode{ModeRun, ModeSidecar, ModeMain} {
		d := Defaults(m)
		if d.Mode != m || d.Grace != 10*time.Second || d.StopSignal != unix.SIGTERM {
			t.Errorf("Defaults(%s): mode %s grace %s stop %v; want %s, 10s, SIGTERM", m, d.Mode, d.Grace, d.StopSignal, m)
		}
		if d.Sidecar.DoneSignal != unix.SIGUSR2 || d.Main.DoneSignal != unix.SIGUSR2 || d.Sidecar.TerminationSignal != unix.SIGTERM {
			t.Errorf("Defaults(%s): done signals %v/%v, termination %v; want SIGUSR2 and SIGTERM",
				m, d.Sidecar.DoneSignal, d.Main.DoneSignal, d.Sidecar.TerminationSignal)
		}
		if d.Sidecar.PollInterval != time.Second || d.Main.WaitTimeout != 5*time.Minute ||
			d.Main.WaitInterval != DefaultWaitInterval || d.Main.Peers.Timeout != DefaultPeerTimeout {
			t.Errorf("Defaults(%s): poll %s wait-timeout %s wait-interval %s peer-timeout %s",
				m, d.Sidecar.PollInterval, d.Main.WaitTimeout, d.Main.WaitInterval, d.Main.Peers.Timeout)
		}
		if d.Main.Peers.Enabled || d.Sidecar.Restart != RestartNever || d.Sidecar.StopWhen != StopWhenAny {
			t.Errorf("Defaults(%s): peers %v restart %v stop-when %v; want off, never, any",
				m, d.Main.Peers.Enabled, d.Sidecar.Restart, d.Sidecar.StopWhen)
		}
	}
}

func TestModeString(t *testing.T) {
	for m, want := range map[Mode]string{ModeRun: "run", ModeSidecar: "sidecar", ModeMain: "main"} {
		if m.String() != want {
			t.Errorf("Mode(%d) = %q, want %q", m, m.String(), want)
		}
	}
}

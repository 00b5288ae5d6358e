package supervisor

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// validConfig is a config of mode m that Validate accepts.
func validConfig(m Mode) Config {
	return Config{
		Mode:         m,
		Command:      []string{"/bin/true"},
		Grace:        DefaultGrace,
		PollInterval: DefaultPollInterval,
		WaitTimeout:  DefaultWaitTimeout,
		WaitInterval: DefaultWaitInterval,
	}
}

func TestValidateUsageErrorsNameTheValue(t *testing.T) {
	tests := []struct {
		name   string
		mode   Mode
		change func(*Config)
		want   []string // substrings of the error: the flag and the value
	}{
		{"missing CMD", ModeSidecar, func(c *Config) { c.Command = nil }, []string{"missing CMD", "tandem sidecar"}},
		{"negative grace", ModeRun, func(c *Config) { c.Grace = -time.Second }, []string{"--grace", "-1s"}},
		{"success code too big", ModeRun, func(c *Config) { c.SuccessCodes = []int{0, 256} }, []string{"--success-code", "256"}},
		{"success code negative", ModeMain, func(c *Config) { c.SuccessCodes = []int{-1} }, []string{"--success-code", "-1"}},
		{"poll interval zero", ModeSidecar, func(c *Config) { c.PollInterval = 0 }, []string{"--poll-interval", "0s"}},
		{"outlive negative", ModeSidecar, func(c *Config) { c.OutliveMain = -time.Minute }, []string{"--outlive-main", "-1m0s"}},
		{"ready-when without ready-file", ModeSidecar, func(c *Config) {
			c.ReadyWhen = []Condition{{raw: "file:/x", kind: condFile, path: "/x"}}
		}, []string{"--ready-when", "--ready-file"}},
		{"done signal TERM", ModeSidecar, func(c *Config) { c.DoneSignal = unix.SIGTERM }, []string{"--done-signal", "SIGTERM"}},
		{"done signal KILL", ModeSidecar, func(c *Config) { c.DoneSignal = unix.SIGKILL }, []string{"--done-signal", "SIGKILL"}},
		{"done signal CHLD", ModeSidecar, func(c *Config) { c.DoneSignal = unix.SIGCHLD }, []string{"--done-signal", "SIGCHLD"}},
		{"wait timeout zero", ModeMain, func(c *Config) { c.WaitTimeout = 0 }, []string{"--wait-timeout", "0s"}},
		{"wait interval negative", ModeMain, func(c *Config) { c.WaitInterval = -time.Millisecond }, []string{"--wait-interval", "-1ms"}},
		{"two done files for main", ModeMain, func(c *Config) { c.DoneFiles = []string{"/a", "/b"} }, []string{"--done-file", "2 times"}},
		{"https quit url", ModeSidecar, func(c *Config) { c.QuitURLs = []string{"https://127.0.0.1:15020/quitquitquit"} },
			[]string{"--quit-url", "https://127.0.0.1:15020/quitquitquit", "exec:"}},
		{"quit url without scheme", ModeMain, func(c *Config) { c.QuitURLs = []string{"127.0.0.1:15020"} },
			[]string{"--quit-url", "127.0.0.1:15020"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := validConfig(tt.mode)
			tt.change(&cfg)
			err := cfg.Validate()
			if err == nil {
				t.Fatal("Validate accepted it")
			}
			if code := ExitCodeOf(err); code != ExitUsage {
				t.Errorf("exit code %d, want %d", code, ExitUsage)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
}

func TestValidateAcceptsAndFillsDefaults(t *testing.T) {
	for _, m := range []Mode{ModeRun, ModeSidecar, ModeMain} {
		cfg := validConfig(m)
		cfg.Grace = 0 // stop at once: allowed
		cfg.SuccessCodes = []int{0, 255}
		cfg.QuitURLs = []string{"http://127.0.0.1:15020/quitquitquit"}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if cfg.StopSignal != unix.SIGTERM || cfg.DoneSignal != unix.SIGUSR2 {
			t.Errorf("%s: defaults stop %v done %v, want SIGTERM and SIGUSR2", m, cfg.StopSignal, cfg.DoneSignal)
		}
	}
	// Settings of other modes are not checked: run ignores the sidecar's.
	cfg := validConfig(ModeRun)
	cfg.PollInterval, cfg.WaitTimeout = 0, 0
	if err := cfg.Validate(); err != nil {
		t.Fatalf("run with sidecar/main settings zeroed: %v", err)
	}
}

func TestModeString(t *testing.T) {
	for m, want := range map[Mode]string{ModeRun: "run", ModeSidecar: "sidecar", ModeMain: "main"} {
		if m.String() != want {
			t.Errorf("Mode(%d) = %q, want %q", m, m.String(), want)
		}
	}
}

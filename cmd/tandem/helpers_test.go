package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/supervisor"
)

// testTerminationLog is what defaultTerminationLog gives in these tests, so
// that the default does not depend on this machine's /dev/termination-log.
const testTerminationLog = "/test/termination-log"

// captured is what a command handed to the supervisor: at most one is set.
type captured struct {
	cfg  *supervisor.Config
	done *supervisor.DoneOptions
	wait *supervisor.WaitOptions
}

// runApp runs `tandem args...` through newApp with env as the only TANDEM_
// environment, the supervisor replaced by a recorder. It returns what was
// captured, what tandem wrote to stderr (logs, messages) and Run's error.
func runApp(t *testing.T, env map[string]string, args ...string) (captured, string, error) {
	t.Helper()
	isolateEnv(t, env)
	var got captured
	replace(t, &runSupervisor, func(_ context.Context, cfg supervisor.Config) error {
		got.cfg = &cfg
		logProbe(cfg.Log)
		return nil
	})
	replace(t, &announceDone, func(_ context.Context, opts supervisor.DoneOptions) error {
		got.done = &opts
		logProbe(opts.Log)
		return nil
	})
	replace(t, &waitFor, func(_ context.Context, opts supervisor.WaitOptions) error {
		got.wait = &opts
		logProbe(opts.Log)
		return nil
	})
	replace(t, &defaultTerminationLog, func() string { return testTerminationLog })
	argv := append([]string{"tandem"}, args...)
	var err error
	stderr := captureStderr(t, func() { err = run(argv) })
	return got, stderr, err
}

// mustRunApp is runApp for a command line that must succeed.
func mustRunApp(t *testing.T, env map[string]string, args ...string) captured {
	t.Helper()
	got, stderr, err := runApp(t, env, args...)
	if err != nil {
		t.Fatalf("tandem %q: %v\n%s", args, err, stderr)
	}
	return got
}

// logProbe writes a debug, an info and a warn line with the logger a
// command built, for the logger tests to read back.
func logProbe(log zerolog.Logger) {
	log.Debug().Str("event", "probe-debug").Msg("probe")
	log.Info().Str("event", "probe-info").Msg("probe")
	log.Warn().Str("event", "probe-warn").Msg("probe")
}

// replace sets *v to value for the rest of the test.
func replace[T any](t testing.TB, v *T, value T) {
	old := *v
	*v = value
	t.Cleanup(func() { *v = old })
}

// isolateEnv unsets every TANDEM_ variable of the test's environment, then
// sets env, all restored when the test ends.
func isolateEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "TANDEM_") {
			t.Setenv(name, "") // registers the restore
			os.Unsetenv(name)
		}
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// captureStderr runs fn with os.Stderr sent to a file and returns what was
// written: tandem's logger and its messages write to os.Stderr.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stderr
	os.Stderr = f
	defer func() { os.Stderr = old }()
	fn()
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// wantConfig is Defaults(mode) as the CLI fills it for CMD x, changed by
// change.
func wantConfig(mode supervisor.Mode, change func(*supervisor.Config)) supervisor.Config {
	cfg := supervisor.Defaults(mode)
	cfg.Command = []string{"x"}
	cfg.TerminationLog = testTerminationLog
	if change != nil {
		change(&cfg)
	}
	return cfg
}

// assertConfig compares got with want, the logger aside (see the logger
// tests) and empty slices and maps taken as absent.
func assertConfig(t *testing.T, got *supervisor.Config, want supervisor.Config) {
	t.Helper()
	if got == nil {
		t.Fatal("the supervisor was not called")
	}
	g := normalize(*got)
	w := normalize(want)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("config\n got %+v\nwant %+v", g, w)
	}
}

func normalize(cfg supervisor.Config) supervisor.Config {
	cfg.Log = zerolog.Logger{}
	if len(cfg.Rewrite) == 0 {
		cfg.Rewrite = nil
	}
	nilIfEmpty(&cfg.Command)
	nilIfEmpty(&cfg.SuccessCodes)
	nilIfEmpty(&cfg.Sidecar.DoneFiles)
	nilIfEmpty(&cfg.Sidecar.QuitURLs)
	nilIfEmpty(&cfg.Sidecar.ReadyWhen)
	nilIfEmpty(&cfg.Main.QuitURLs)
	nilIfEmpty(&cfg.Main.WaitFor)
	nilIfEmpty(&cfg.Main.Peers.Names)
	return cfg
}

func nilIfEmpty[T any](s *[]T) {
	if len(*s) == 0 {
		*s = nil
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/process"
)

// TestExit: the one place where an error becomes the exit code, and what it
// prints: nothing for an error tandem already logged, the message on one
// line otherwise (a usage error too: it names what is accepted).
func TestExit(t *testing.T) {
	for _, tt := range []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"success", nil, 0, ""},
		{"logged", &exitcode.Error{Code: 143, Logged: true, Err: errors.New("CMD killed")}, 143, ""},
		{"logged without error", &exitcode.Error{Code: 3, Logged: true}, 3, ""},
		{"wrapped logged", fmt.Errorf("run: %w", &exitcode.Error{Code: 1, Logged: true}), 1, ""},
		{"usage", exitcode.Usagef("--grace %q: expected a duration", "soon"), 2,
			"tandem: --grace \"soon\": expected a duration\n"},
		{"not logged timeout", &exitcode.Error{Code: 1, Err: errors.New("timed out")}, 1, "tandem: timed out\n"},
		{"not found", &process.StartError{Name: "prog", NotFound: true, Err: exec.ErrNotFound}, 127,
			"tandem: start \"prog\": executable file not found in $PATH\n"},
		{"cannot run", &process.StartError{Name: "prog", Err: fs.ErrPermission}, 126,
			"tandem: start \"prog\": permission denied\n"},
		{"internal", errors.New("boom"), 125, "tandem: boom\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var code int
			stderr := captureStderr(t, func() { code = exit(tt.err) })
			if code != tt.code {
				t.Errorf("exit(%v) = %d, want %d", tt.err, code, tt.code)
			}
			if stderr != tt.stderr {
				t.Errorf("exit(%v) printed %q, want %q", tt.err, stderr, tt.stderr)
			}
		})
	}
}

// TestExitOfCommandLines: the whole path from a command line to the code and
// what is printed.
func TestExitOfCommandLines(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		code    int
		mention string
	}{
		{[]string{"run", "--grace", "soon", "--", "x"}, 2, "soon"},
		{[]string{"version", "--bogus"}, 2, "bogus"},
		{[]string{"done", "--exit-code", "many"}, 2, "many"},
		{[]string{"install", filepath.Join(t.TempDir(), "missing")}, 125, "missing"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := runApp(t, nil, tt.args...)
			var code int
			stderr := captureStderr(t, func() { code = exit(err) })
			if code != tt.code || !strings.Contains(stderr, tt.mention) {
				t.Errorf("exit %d printing %q, want %d naming %q", code, stderr, tt.code, tt.mention)
			}
			if lines := strings.Count(stderr, "\n"); lines != 1 {
				t.Errorf("printed %d lines for exit %d, want one: %q", lines, code, stderr)
			}
		})
	}
}

// TestLogger: every line carries the mode and --name, given before or after
// the command name or as TANDEM_NAME; level and format apply.
func TestLogger(t *testing.T) {
	jsonLogs := map[string]string{"TANDEM_LOG_FORMAT": "json"}
	// run logs at warn unless told (TestLogLevelDefaults): these read info lines.
	jsonInfo := map[string]string{"TANDEM_LOG_FORMAT": "json", "TANDEM_LOG_LEVEL": "info"}
	for _, tt := range []struct {
		name      string
		env       map[string]string
		args      []string
		mode      string
		wantName  string
		wantDebug bool
	}{
		{"name before main", jsonLogs, []string{"--name", "job", "main", "--done-file", "/d", "--", "x"}, "main", "job", false},
		{"name after main", jsonLogs, []string{"main", "--name", "job", "--", "x"}, "main", "job", false},
		{"name from env", map[string]string{"TANDEM_LOG_FORMAT": "json", "TANDEM_NAME": "web"}, []string{"sidecar", "--", "x"}, "sidecar", "web", false},
		{"no name", jsonInfo, []string{"run", "--", "x"}, "run", "", false},
		{"bare form", jsonInfo, []string{"--name", "web", "--", "x"}, "run", "web", false},
		{"done", jsonLogs, []string{"--name", "job", "done", "--file", "/d"}, "done", "job", false},
		{"wait", jsonLogs, []string{"wait", "--for", "file:/x"}, "wait", "", false},
		{"debug level", jsonLogs, []string{"run", "--log-level", "debug", "--", "x"}, "run", "", true},
		{"debug level before run", jsonLogs, []string{"--log-level", "debug", "run", "--", "x"}, "run", "", true},
		{"json flag", nil, []string{"--log-format", "json", "run", "--log-level", "info", "--", "x"}, "run", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := runApp(t, tt.env, tt.args...)
			if err != nil {
				t.Fatalf("tandem %q: %v", tt.args, err)
			}
			lines := probeLines(t, stderr)
			info, ok := lines["probe-info"]
			if !ok {
				t.Fatalf("no info line logged:\n%s", stderr)
			}
			if info["mode"] != tt.mode || (tt.wantName == "") == (info["name"] != nil) || (tt.wantName != "" && info["name"] != tt.wantName) {
				t.Errorf("line %v: want mode %q, name %q", info, tt.mode, tt.wantName)
			}
			if _, debug := lines["probe-debug"]; debug != tt.wantDebug {
				t.Errorf("debug line logged %v, want %v", debug, tt.wantDebug)
			}
		})
	}
	// A forced console format is for people: not JSON, no colours when
	// stderr is not a terminal.
	_, stderr, err := runApp(t, nil, "run", "--log-format", "console", "--log-level", "info", "--", "x")
	if err != nil || !strings.Contains(stderr, "probe") || strings.Contains(stderr, "{") || strings.Contains(stderr, "\x1b[") {
		t.Errorf("console format: %v, logged %q; want a plain console line", err, stderr)
	}
}

// probeLines parses the JSON lines of stderr by their event.
func probeLines(t *testing.T, stderr string) map[string]map[string]any {
	t.Helper()
	lines := map[string]map[string]any{}
	for _, raw := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var line map[string]any
		if err := json.Unmarshal([]byte(raw), &line); err != nil {
			t.Fatalf("not a JSON line: %q", raw)
		}
		if ev, ok := line["event"].(string); ok {
			lines[ev] = line
		}
	}
	return lines
}

func TestVersionAndInstall(t *testing.T) {
	isolateEnv(t, nil)
	app := newApp()
	var out bytes.Buffer
	app.Writer = &out
	if err := app.Run([]string{"tandem", "version"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "tandem dev\ncommit unknown\ngo") || strings.Count(out.String(), "\n") != 3 {
		t.Errorf("version printed %q, want version, commit and Go on three lines", out.String())
	}
	dir := t.TempDir()
	app = newApp()
	var errOut bytes.Buffer
	app.ErrWriter = &errOut
	if err := app.Run([]string{"tandem", "install", dir}); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "tandem")
	if info, err := os.Stat(target); err != nil || info.Mode() != 0o555 {
		t.Errorf("installed %s: %v, %v", target, info, err)
	}
	if !strings.Contains(errOut.String(), "installed "+target) {
		t.Errorf("install said %q, want it to name %s", errOut.String(), target)
	}
}

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
)

// TestPathFaults: a file flag that names a directory (existing, or by a
// trailing /) or has a .. component, a ready or stopped file that is one
// of the sidecar's own done files, a --needs given twice, however spelled,
// is a usage error before anything runs, and nothing is removed.
func TestPathFaults(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	done := filepath.Join(dir, "done")
	t.Chdir(dir)
	for _, tt := range []struct {
		name    string
		args    []string
		mention string
	}{
		{"main done file is a directory", []string{"main", "--done-file", existing, "--", "x"}, "is a directory"},
		{"done file is a directory", []string{"done", "--done-file", existing}, "is a directory"},
		{"ready file is a directory", []string{"sidecar", "--ready-file", existing, "--", "x"}, "is a directory"},
		{"termination log is a directory", []string{"run", "--termination-log", existing, "--", "x"}, "is a directory"},
		{"trailing slash", []string{"main", "--done-file", done + "/", "--", "x"}, "ends in /"},
		{"stopped file is a done file", []string{"sidecar", "--done-file", done, "--stopped-file", ".//done", "--", "x"},
			`--stopped-file "done" is also a --done-file`},
		{"a .. component", []string{"main", "--done-file", "v/missing/../done", "--", "x"},
			`--done-file "v/missing/../done": has a .. component`},
		{"a .. component in a variable", []string{"done", "--done-file", "../done"}, "has a .. component"},
		{"ready file is a done file", []string{"sidecar", "--done-file", "/elsewhere", "--done-file", "done",
			"--ready-file", done, "--", "x"}, "is also a --done-file"},
		{"a needed ready file twice, spelled two ways", []string{"main", "--needs", "db.ready", "--needs", dir + "//db.ready", "--", "x"},
			`--needs "` + dir + `/db.ready": the same file as --needs "db.ready"`},
		{"ready file is the stopped file", []string{"sidecar", "--ready-file", "r", "--stopped-file", dir + "/r", "--", "x"},
			"is also the --ready-file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := runApp(t, nil, tt.args...)
			if code := exitcode.Of(err); code != exitcode.Usage || !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("tandem %q: %v (exit %d); want exit 2 saying %q", tt.args, err, code, tt.mention)
			}
			if got.cfg != nil || got.done != nil {
				t.Error("the command ran")
			}
			if info, err := os.Stat(existing); err != nil || !info.IsDir() {
				t.Errorf("the directory is gone: %v", err)
			}
		})
	}
}

// TestWatchedDirectory: a directory at a sidecar's done file counts as
// present, as any file does (integration's TestFaultOddDoneFileAtStart):
// the sidecar only looks, it removes nothing.
func TestWatchedDirectory(t *testing.T) {
	dir := t.TempDir()
	got := mustRunApp(t, nil, "sidecar", "--done-file", dir, "--", "x")
	if got.cfg == nil || len(got.cfg.Sidecar.DoneFiles) != 1 || got.cfg.Sidecar.DoneFiles[0] != dir {
		t.Errorf("sidecar --done-file DIR: %+v", got.cfg)
	}
}

// TestNameLengthLimit: the longest name accepted leaves room for what
// tandem adds; one byte more is refused, naming the limit.
func TestNameLengthLimit(t *testing.T) {
	dir := t.TempDir()
	longest := filepath.Join(dir, strings.Repeat("n", cmdline.NameMax-cmdline.AddedToName))
	mustRunApp(t, nil, "main", "--done-file", longest, "--", "x")
	_, _, err := runApp(t, nil, "main", "--done-file", longest+"n", "--", "x")
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "NAME_MAX") {
		t.Errorf("a name one byte too long: %v; want exit 2 naming NAME_MAX", err)
	}
	_, _, err = runApp(t, nil, "main", "--done-file", filepath.Join(dir, strings.Repeat("d", cmdline.NameMax+1), "done"), "--", "x")
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "NAME_MAX") {
		t.Errorf("a directory name too long: %v; want exit 2 naming NAME_MAX", err)
	}
}

// On the command line each --done-file is one path, commas and all; the
// variable's value is a comma-separated list.
func TestRepeatableFlagCommas(t *testing.T) {
	got := mustRunApp(t, nil, "sidecar", "--done-file", "/run/a,b/done", "--ready-when", "exec:check a,b", "--ready-file", "/run/r", "--", "x")
	if files := got.cfg.Sidecar.DoneFiles; !slices.Equal(files, []string{"/run/a,b/done"}) {
		t.Errorf("--done-file /run/a,b/done: %q; want the one path", files)
	}
	if n := len(got.cfg.Sidecar.ReadyWhen); n != 1 {
		t.Errorf("--ready-when with a comma: %d conditions; want 1", n)
	}
	got = mustRunApp(t, map[string]string{"TANDEM_DONE_FILE": "/run/a.done,/run/b.done"}, "sidecar", "--", "x")
	if files := got.cfg.Sidecar.DoneFiles; !slices.Equal(files, []string{"/run/a.done", "/run/b.done"}) {
		t.Errorf("TANDEM_DONE_FILE with two paths: %q", files)
	}
}

// TestCommasInTheDocs: docs/commands.md says what TestRepeatableFlagCommas
// proves, and nowhere the opposite.
func TestCommasInTheDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	if strings.Contains(text, "split on commas on the command line") {
		t.Error("docs/commands.md says command-line values are split on commas")
	}
	for _, says := range []string{"a repeatable flag's variable takes a comma-separated list (on the command line each flag is one value",
		"On the command line each flag is one value, commas and all"} {
		if !strings.Contains(text, says) {
			t.Errorf("docs/commands.md does not say %q", says)
		}
	}
}

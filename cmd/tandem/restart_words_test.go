package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestartBudgetWords: --max-restarts counts restarts, after any exit
// that --restart restarts (a clean one too, with always): the help and
// docs/commands.md say so, and never call them crashes.
func TestRestartBudgetWords(t *testing.T) {
	isolateEnv(t, nil)
	app := newApp()
	var help bytes.Buffer
	app.Writer = &help
	if err := app.Run([]string{"tandem", "sidecar", "--help"}); err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, line := range strings.Split(help.String(), "\n") {
		if name, _, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			lines[name] = line
		}
	}
	if l := lines["--max-restarts"]; !strings.Contains(l, "each restart counts, whatever CMD's exit code") {
		t.Errorf("the help of --max-restarts does not say what it counts: %q", l)
	}
	if l := lines["--restart-window"]; !strings.Contains(l, "counts restarts") || !strings.Contains(l, "needs --max-restarts") {
		t.Errorf("the help of --restart-window does not say what it counts and needs: %q", l)
	}
	for _, row := range docRows(t, "`--max-restarts N`", "`--restart-window D`") {
		if strings.Contains(row, "crash") {
			t.Errorf("docs/commands.md calls the restarts crashes: %q", row)
		}
	}
}

// docRows are the lines of docs/commands.md that start with one of prefixes.
func docRows(t *testing.T, prefixes ...string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(doc), "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, "| "+p) {
				rows = append(rows, line)
			}
		}
	}
	if len(rows) != len(prefixes) {
		t.Fatalf("docs/commands.md: %d rows for %q", len(rows), prefixes)
	}
	return rows
}

package peers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMainSignals(t *testing.T) {
	tests := []struct {
		cmdline string
		name    string
		want    bool
	}{
		{"tandem main --peer proxy -- psql", "proxy", true},
		{"/run/tandem/tandem main --peer=proxy,db -- psql", "db", true},
		{"tandem main --peer proxy --peer db -- psql", "db", true},
		{"tandem main --peer proxy -- psql", "db", false},
		{"tandem main --peer proxy -- psql", "", false},
		{"tandem main --signal-peers -- psql", "", true},
		{"tandem main --signal-peers -- psql", "anyone", true},
		{"tandem main -- psql --peer proxy", "proxy", false}, // CMD's own flags
		{"tandem main --done-file /d -- psql", "proxy", false},
		{"tandem sidecar --signal-peers -- x", "proxy", false},
		{"tandem-main --signal-peers", "", false},
	}
	for _, tt := range tests {
		cmdline := []byte(strings.ReplaceAll(tt.cmdline, " ", "\x00") + "\x00")
		if got := mainSignals(cmdline, tt.name); got != tt.want {
			t.Errorf("%q for %q: %v, want %v", tt.cmdline, tt.name, got, tt.want)
		}
	}
}

// A main's CMD between fork and exec shows the main's command line, with
// one thread: holding it would take CMD's end for the main's.
func TestFindMainSkipsAForkedCopy(t *testing.T) {
	root := t.TempDir()
	const cmdline = "tandem\x00main\x00--signal-peers\x00--\x00job\x00"
	for entry, tids := range map[string][]string{"201": {"201"}, "202": {"202", "203"}} {
		for _, tid := range tids {
			if err := os.MkdirAll(filepath.Join(root, entry, "task", tid), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, entry, "cmdline"), []byte(cmdline), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	finder := &ProcFinder{procRoot: root}
	if p, ok := finder.FindMain("proxy"); !ok || p.PID != 202 {
		t.Fatalf("FindMain = (%+v, %v), want the main 202 and not its forked copy 201", p, ok)
	}
	if err := os.RemoveAll(filepath.Join(root, "202")); err != nil {
		t.Fatal(err)
	}
	if p, ok := finder.FindMain("proxy"); ok {
		t.Fatalf("FindMain = %+v with only a forked copy left, want none", p)
	}
}

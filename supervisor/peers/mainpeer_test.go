package peers

import (
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

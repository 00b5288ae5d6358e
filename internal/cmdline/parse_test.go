package cmdline

import (
	"reflect"
	"strings"
	"testing"
)

// What a sidecar's --name reads as is tested with supervisor/peers, which
// asks; these are the other flags and the common rules.
func TestParseProc(t *testing.T) {
	for _, tt := range []struct {
		cmdline string // space for NUL
		want    Invocation
		ok      bool
	}{
		{"tandem main --peer proxy -- psql", Invocation{Command: CmdMain, Peers: []string{"proxy"}}, true},
		{"/run/tandem/tandem main --peer=proxy,db -peer x -peer=y -- psql",
			Invocation{Command: CmdMain, Peers: []string{"proxy", "db", "x", "y"}}, true},
		{"tandem main --signal-peers -- psql", Invocation{Command: CmdMain, SignalPeers: true}, true},
		{"tandem main -signal-peers", Invocation{Command: CmdMain, SignalPeers: true}, true},
		{"tandem main --signal-peers=true", Invocation{Command: CmdMain, SignalPeers: true}, true},
		{"tandem main --signal-peers=false", Invocation{Command: CmdMain}, true},
		{"tandem main --name job --peer", Invocation{Command: CmdMain, Name: "job"}, true},
		{"tandem main -- psql --peer proxy --signal-peers --name n", Invocation{Command: CmdMain}, true}, // CMD's own flags
		{"tandem wait --for file:/x", Invocation{Command: CmdWait}, true},
		{"tandem-main --signal-peers", Invocation{}, false},
		{"tandem", Invocation{}, false},
	} {
		got, ok := ParseProc([]byte(strings.ReplaceAll(tt.cmdline, " ", "\x00") + "\x00"))
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %+v, %v; want %+v, %v", tt.cmdline, got, ok, tt.want, tt.ok)
		}
	}
}

func TestEnvVar(t *testing.T) {
	for flag, want := range map[string]string{
		FlagMainStartTimeout: "TANDEM_MAIN_START_TIMEOUT",
		FlagGrace:            "TANDEM_GRACE",
		"log-level":          "TANDEM_LOG_LEVEL",
	} {
		if got := EnvVar(flag); got != want {
			t.Errorf("EnvVar(%q) = %q, want %q", flag, got, want)
		}
	}
}

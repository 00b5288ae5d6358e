package cmdline

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestArgv(t *testing.T) {
	const bin = "/run/tandem/tandem"
	for _, tt := range []struct {
		got  []string
		want string
	}{
		{Run{Binary: bin, Name: "proxy"}.Argv(), "/run/tandem/tandem run --name proxy --"},
		{Run{Binary: bin}.Argv(), "/run/tandem/tandem run --"},
		{Main{Binary: bin, Name: "job", DoneFile: "/d"}.Argv(), "/run/tandem/tandem main --name job --done-file /d --"},
		{Main{Binary: bin, SignalPeers: true, Peers: []string{"a", "b"}, DoneSignal: "USR1"}.Argv(),
			"/run/tandem/tandem main --signal-peers --peer a --peer b --done-signal USR1 --"},
		{Main{Binary: bin, Needs: []string{"/r/a.ready", "/r/b.ready"}}.Argv(),
			"/run/tandem/tandem main --needs /r/a.ready --needs /r/b.ready --"},
		{Sidecar{Binary: bin, Name: "proxy", DoneFiles: []string{"/a", "/b"}, StopWhen: StopWhenSuccess,
			OutliveMain: 90 * time.Second, TerminationSignal: "QUIT", DoneSignal: "USR1"}.Argv(),
			"/run/tandem/tandem sidecar --name proxy --done-file /a --done-file /b --stop-when success " +
				"--outlive-main 90s --termination-signal QUIT --done-signal USR1 --"},
		{Sidecar{Binary: bin, Name: "proxy", DoneFiles: []string{"/d"}, ReadyFile: "/r/proxy.ready",
			ReadyWhen: []string{"tcp:127.0.0.1:5432", "file:/x"}}.Argv(),
			"/run/tandem/tandem sidecar --name proxy --done-file /d --ready-file /r/proxy.ready " +
				"--ready-when tcp:127.0.0.1:5432 --ready-when file:/x --"},
		{Sidecar{Binary: bin, Restart: RestartAlways, MaxRestarts: 3, RestartWindow: 2 * time.Minute, StoppedFile: "/s"}.Argv(),
			"/run/tandem/tandem sidecar --restart always --max-restarts 3 --restart-window 120s --stopped-file /s --"},
		{Sidecar{Binary: bin, OutliveMain: 1500 * time.Millisecond}.Argv(), "/run/tandem/tandem sidecar --outlive-main 1.5s --"},
		{Sidecar{Binary: bin, StopWhen: StopWhenSuccess, StopDelay: time.Second, OutliveMain: 30 * time.Second}.Argv(),
			"/run/tandem/tandem sidecar --stop-when success --stop-delay 1s --outlive-main 30s --"},
		{Wait{Binary: bin, For: []string{"tcp:127.0.0.1:80"}, Timeout: 30 * time.Second}.Argv(),
			"/run/tandem/tandem wait --for tcp:127.0.0.1:80 --timeout 30s"},
		{Install{Binary: "/tandem", Dir: "/run/tandem"}.Argv(), "/tandem install /run/tandem"},
	} {
		if want := strings.Fields(tt.want); !slices.Equal(tt.got, want) {
			t.Errorf("argv %q, want %q", tt.got, want)
		}
	}
}

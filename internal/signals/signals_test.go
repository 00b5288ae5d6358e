package signals

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/testkit"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    unix.Signal
		wantErr string // substring of the error; "" means success
	}{
		{in: "TERM", want: unix.SIGTERM},
		{in: "SIGTERM", want: unix.SIGTERM},
		{in: "term", want: unix.SIGTERM},
		{in: "sigusr2", want: unix.SIGUSR2},
		{in: " HUP ", want: unix.SIGHUP},
		{in: "15", want: unix.SIGTERM},
		{in: "1", want: unix.SIGHUP},
		{in: "34", want: 34},
		{in: "64", want: 64},
		{in: "KILL", want: unix.SIGKILL}, // a valid --stop-signal, though never forwarded
		{in: "ABRT", want: unix.SIGABRT},
		// SignalName writes realtime signals as SIG<N>; they must parse back.
		{in: "SIG34", want: 34},
		{in: "sig64", want: 64},
		{in: "0", wantErr: `signal "0": expected a number from 1 to 64`},
		{in: "65", wantErr: `signal "65": expected a number from 1 to 64`},
		{in: "-1", wantErr: `signal "-1"`},
		{in: "32", wantErr: "not 32 or 33"},
		{in: "33", wantErr: "not 32 or 33"},
		{in: "SIG32", wantErr: "not 32 or 33"},
		{in: "SIG0", wantErr: `signal "SIG0"`},
		{in: "FOO", wantErr: `signal "FOO": unknown name`},
		{in: "SIG", wantErr: `signal "SIG": unknown name`},
		{in: "", wantErr: `signal "": unknown name`},
		{in: "TERM:QUIT", wantErr: "unknown name"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if testkit.WantsError(t, err, tt.wantErr, "Parse(%q) = %v", tt.in, got) {
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// Every signal tandem names in a log line, a done file or the termination
// log must read back as the same number (users copy them into flags).
func TestSignalNameRoundTrip(t *testing.T) {
	for n := unix.Signal(1); n <= lastSignal; n++ {
		if n == 32 || n == 33 {
			continue
		}
		name := Name(n)
		if !strings.HasPrefix(name, "SIG") {
			t.Errorf("Name(%d) = %q; want a SIG prefix", n, name)
		}
		got, err := Parse(name)
		if err != nil || got != n {
			t.Errorf("Parse(Name(%d) = %q) = %v, %v", n, name, got, err)
		}
	}
}

func TestParseRewrite(t *testing.T) {
	tests := []struct {
		in       string
		from, to unix.Signal
		wantErr  string
	}{
		{in: "TERM:QUIT", from: unix.SIGTERM, to: unix.SIGQUIT},
		{in: "sigint:term", from: unix.SIGINT, to: unix.SIGTERM},
		{in: "15:3", from: unix.SIGTERM, to: unix.SIGQUIT},
		{in: "TERM:KILL", from: unix.SIGTERM, to: unix.SIGKILL}, // a forwarded TERM may become KILL
		{in: "WINCH:40", from: unix.SIGWINCH, to: 40},
		{in: "HUP:0", from: unix.SIGHUP, to: Drop}, // dumb-init's -r 1:0: not forwarded
		{in: "USR1: 0", from: unix.SIGUSR1, to: Drop},
		{in: "TERM", wantErr: `rewrite "TERM": expected FROM:TO`},
		{in: "", wantErr: "expected FROM:TO"},
		{in: "TERM:", wantErr: `rewrite "TERM:": signal ""`},
		{in: ":TERM", wantErr: `rewrite ":TERM": signal ""`},
		{in: "BOGUS:TERM", wantErr: `signal "BOGUS"`},
		{in: "TERM:99", wantErr: `signal "99"`},
		{in: "KILL:TERM", wantErr: "SIGKILL cannot be caught or forwarded"},
		{in: "STOP:TERM", wantErr: "SIGSTOP cannot be caught or forwarded"},
		{in: "CHLD:TERM", wantErr: "SIGCHLD cannot be caught or forwarded"},
		{in: "URG:TERM", wantErr: "SIGURG cannot be caught or forwarded"},
		{in: "PROF:TERM", wantErr: "SIGPROF cannot be caught or forwarded"},
		{in: "TERM:QUIT:HUP", wantErr: `signal "QUIT:HUP"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			from, to, err := ParseRewrite(tt.in)
			if testkit.WantsError(t, err, tt.wantErr, "ParseRewrite(%q) = %v, %v", tt.in, from, to) {
				return
			}
			if err != nil || from != tt.from || to != tt.to {
				t.Fatalf("ParseRewrite(%q) = %v, %v, %v; want %v, %v", tt.in, from, to, err, tt.from, tt.to)
			}
		})
	}
}

func TestAllForwardable(t *testing.T) {
	sigs := AllForwardable()
	for _, never := range []unix.Signal{unix.SIGKILL, unix.SIGSTOP, unix.SIGCHLD, unix.SIGURG, unix.SIGPROF, 32, 33, 34, 0, 65} {
		if slices.Contains(sigs, never) {
			t.Errorf("AllForwardable contains %d (%s)", never, Name(never))
		}
	}
	for _, want := range []unix.Signal{unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGTERM, unix.SIGUSR1,
		unix.SIGUSR2, unix.SIGWINCH, unix.SIGCONT, unix.SIGTSTP, 35, 64} {
		if !slices.Contains(sigs, want) {
			t.Errorf("AllForwardable lacks %d (%s)", want, Name(want))
		}
	}
	// 1..31 less KILL, STOP, CHLD, URG and PROF (the Go runtime's), and the
	// realtime signals 35..64 (the runtime cannot catch 34).
	if len(sigs) != 26+30 {
		t.Errorf("AllForwardable has %d signals, want 56: %v", len(sigs), sigs)
	}
	if !slices.IsSorted(sigs) {
		t.Errorf("AllForwardable is not in order: %v", sigs)
	}
}

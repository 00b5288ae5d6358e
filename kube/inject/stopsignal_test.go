package inject

import (
	"slices"
	"strings"
	"testing"
)

// withAnnotation adds a pod template annotation to pod(spec).
func withAnnotation(spec, key, value string) string {
	return strings.Replace(pod(spec), "  annotations:\n", "  annotations:\n    "+key+": "+value+"\n", 1)
}

// The tandem.sh/stop-signal annotation states a sidecar's stop signal on
// every cluster: a sidecar with a command then needs no lookup at all.
func TestStopSignalAnnotation(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // the sidecar's flags after --outlive-main 30s
	}{
		{"QUIT, for an image that cannot be read", withAnnotation(sprintf(twoContainers, "unknown:1"), "tandem.sh/stop-signal.side", "QUIT"),
			[]string{"--termination-signal", "QUIT"}},
		{"SIGINT, written as the image writes it", withAnnotation(sprintf(twoContainers, "unknown:1"), "tandem.sh/stop-signal.side", "SIGINT"),
			[]string{"--termination-signal", "INT"}},
		{"TERM over an image that says QUIT", withAnnotation(sprintf(twoContainers, "nginx:1"), "tandem.sh/stop-signal.side", `"15"`), nil},
		{"the same signal as lifecycle.stopSignal",
			withAnnotation(sprintf(twoContainers, "unknown:1")+"      lifecycle:\n        stopSignal: SIGQUIT\n", "tandem.sh/stop-signal.side", "quit"),
			[]string{"--termination-signal", "QUIT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			r, out := injectYAML(t, tt.src, opts)
			if r.Status != Injected || len(r.Warnings) > 0 {
				t.Fatalf("%s; want injected without warnings", r)
			}
			if lookups := opts.Resolver.(*fakeResolver).lookups; len(lookups) > 0 {
				t.Errorf("looked up %q; want no lookup", lookups)
			}
			want := append(append(append([]string{binary, "sidecar", "--name", "side", "--done-file", "/run/tandem/main.done", "--stop-when", "deletion", "--outlive-main", "30s"}, tt.want...), classicPromises...), "--grace", "5s", "--")
			if got := listOf(t, out, "side", "command"); !slices.Equal(got, want) {
				t.Errorf("sidecar command %q; want %q", got, want)
			}
		})
	}
}

// A bad stop-signal annotation is an error naming it, its value and an
// example; the resource is left as it was.
func TestStopSignalAnnotationErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      string
	}{
		{"not a signal", withAnnotation(sprintf(twoContainers, "app:1"), "tandem.sh/stop-signal.side", `"SIG KILL"`),
			`tandem.sh/stop-signal.side: "SIG KILL": expected a signal name or number that tandem can catch, e.g. tandem.sh/stop-signal.side: QUIT`},
		{"empty", withAnnotation(sprintf(twoContainers, "app:1"), "tandem.sh/stop-signal.side", `""`),
			`tandem.sh/stop-signal.side: "": expected a signal name or number that tandem can catch, e.g. tandem.sh/stop-signal.side: QUIT`},
		{"out of range", withAnnotation(sprintf(twoContainers, "app:1"), "tandem.sh/stop-signal.side", `"99"`),
			`tandem.sh/stop-signal.side: "99": expected a signal name or number that tandem can catch, e.g. tandem.sh/stop-signal.side: QUIT`},
		{"a name tandem does not know, on a main", withAnnotation(sprintf(twoContainers, "app:1"), "tandem.sh/stop-signal.main", "BOGUS"),
			`tandem.sh/stop-signal.main: "BOGUS": expected a signal name or number that tandem can catch, e.g. tandem.sh/stop-signal.main: QUIT`},
		{"a signal no program can catch", withAnnotation(sprintf(twoContainers, "app:1"), "tandem.sh/stop-signal.side", "KILL"),
			`tandem.sh/stop-signal.side: "KILL": expected a signal name or number that tandem can catch, e.g. tandem.sh/stop-signal.side: QUIT`},
		{"lifecycle.stopSignal tandem does not know, on a main",
			pod(strings.Replace(sprintf(twoContainers, "app:1"), "    - name: side", "      lifecycle:\n        stopSignal: SIGBOGUS\n    - name: side", 1)),
			`lifecycle.stopSignal: stop signal "SIGBOGUS": expected a signal name such as SIGQUIT or SIGRTMIN+3, or a number from 1 to 64 (not 32 or 33)`},
		{"a container the pod does not have", withAnnotation(sprintf(twoContainers, "app:1"), "tandem.sh/stop-signal.proxy", "QUIT"),
			`tandem.sh/stop-signal.proxy names container "proxy", which this pod does not have (it has main, side): fix the annotation`},
		{"disagrees with lifecycle.stopSignal",
			withAnnotation(sprintf(twoContainers, "app:1")+"      lifecycle:\n        stopSignal: SIGINT\n", "tandem.sh/stop-signal.side", "QUIT"),
			`container "side" (image "app:1"): tandem.sh/stop-signal.side says QUIT but lifecycle.stopSignal says SIGINT`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, out := injectYAML(t, tt.src, testOptions())
			if r.Status != Failed || !strings.Contains(r.String(), tt.want) {
				t.Errorf("report %q; want not injected, with %q", r, tt.want)
			}
			unchanged(t, tt.src, out)
		})
	}
}

// Under --resolve none a sidecar whose stop signal is not stated is
// injected for SIGTERM, and the report says so and how to state another.
func TestStopSignalAssumed(t *testing.T) {
	noLookups := func(o *Options) { o.Resolver = nil }
	r, _ := injectYAML(t, pod(sprintf(twoContainers, "nginx:1")), testOptionsWith(noLookups))
	want := `warning: sidecar "side": SIGTERM assumed on pod deletion (--resolve none reads no STOPSIGNAL); ` +
		`if its image sets another, annotate tandem.sh/stop-signal.side: SIGNAL`
	if r.Status != Injected || !strings.HasSuffix(r.String(), want) {
		t.Errorf("report %q; want injected, with %q", r, want)
	}
	for _, stated := range []string{
		withAnnotation(sprintf(twoContainers, "nginx:1"), "tandem.sh/stop-signal.side", "TERM"),
		pod(sprintf(twoContainers, "nginx:1") + "      lifecycle:\n        stopSignal: SIGTERM\n"),
	} {
		if r, _ := injectYAML(t, stated, testOptionsWith(noLookups)); r.Status != Injected || len(r.Warnings) > 0 {
			t.Errorf("report %q; want injected without a warning (the stop signal is stated)", r)
		}
	}
	// Native mode assumes it as well, and says so: the kubelet stops a
	// native sidecar with its image's STOPSIGNAL too.
	native := func(o *Options) { o.Resolver, o.Mode = nil, Native }
	if r, _ := injectYAML(t, pod(sprintf(twoContainers, "nginx:1")), testOptionsWith(native)); r.Status != Injected || !strings.HasSuffix(r.String(), want) {
		t.Errorf("native: report %q; want injected, with %q", r, want)
	}
	// A native sidecar of a Job with its own preStop hook runs under
	// `tandem run`, which has no use for its stop signal: nothing assumed.
	runAlone := pod("  restartPolicy: Never\n" + sprintf(twoContainers, "nginx:1") + "      lifecycle: {preStop: {exec: {command: [/drain]}}}\n")
	if r, _ := injectYAML(t, runAlone, testOptionsWith(native)); r.Status != Injected || strings.Contains(r.String(), "SIGTERM assumed") {
		t.Errorf("native, under tandem run: report %q; want injected, nothing assumed", r)
	}
}

// A main whose stop signal the manifest states is told it: its tandem then
// takes that signal alone for the pod's stop (a JVM's SIGQUIT for a thread
// dump starts no termination grace). Unstated, nothing is written and the
// main counts each of the stock images' STOPSIGNALs.
func TestStopSignalOfMain(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // the main's flags after --termination-grace 25s
	}{
		{"annotated TERM", withAnnotation(sprintf(twoContainers, "app:1"), "tandem.sh/stop-signal.main", "TERM"),
			[]string{"--termination-signal", "TERM"}},
		{"annotated SIGQUIT", withAnnotation(sprintf(twoContainers, "app:1"), "tandem.sh/stop-signal.main", "SIGQUIT"),
			[]string{"--termination-signal", "QUIT"}},
		{"not stated", pod(sprintf(twoContainers, "app:1")), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, out := injectYAML(t, tt.src, testOptions())
			if r.Status != Injected {
				t.Fatalf("%s; want injected", r)
			}
			want := append(append([]string{binary, "main", "--name", "main", "--done-file", "/run/tandem/main.done", "--termination-grace", "25s"}, tt.want...), "--")
			if got := listOf(t, out, "main", "command"); !slices.Equal(got, want) {
				t.Errorf("main command %q; want %q", got, want)
			}
		})
	}
}

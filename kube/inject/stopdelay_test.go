package inject

import (
	"slices"
	"strings"
	"testing"
)

// The stop-delay annotation becomes the sidecar's --stop-delay in both
// modes, and comes out of that sidecar's share of the grace period: 1.5 s
// of the default 5 s leaves its --grace 3.5 s; a 5 s delay makes its share
// 6 s (the delay and the shortest stop, 1 s), so the main keeps 19 s of
// 30, after s2's 5 s. A sidecar without it has neither.
func TestStopDelay(t *testing.T) {
	for _, tt := range []struct {
		delay      string
		s1, s2     []string
		mainsGrace string
	}{
		{"1500ms", []string{"--stop-delay", "1.5s", "--grace", "3.5s"}, []string{"--grace", "5s"}, "20s"},
		{"5s", []string{"--stop-delay", "5s", "--grace", "1s"}, []string{"--grace", "5s"}, "19s"},
	} {
		for _, mode := range []Mode{Classic, Native} {
			r, out := injectYAML(t, budgetPod("    tandem.sh/stop-delay.s1: "+tt.delay+"\n"), testOptionsWith(func(o *Options) { o.Mode = mode }))
			if r.Status != Injected {
				t.Fatalf("%s: %s", mode, r)
			}
			for name, want := range map[string][]string{"s1": tt.s1, "s2": tt.s2} {
				if got := stopFlags(listOf(t, out, name, "command")); !slices.Equal(got, want) {
					t.Errorf("%s, delay %s, %s: stop flags %q; want %q", mode, tt.delay, name, got, want)
				}
			}
			if main := listOf(t, out, "m", "command"); !slices.Contains(main, tt.mainsGrace) {
				t.Errorf("%s, delay %s: main %q; want --termination-grace %s", mode, tt.delay, main, tt.mainsGrace)
			}
		}
	}
}

// stopFlags are the --stop-delay and --grace of a command line, with their
// values.
func stopFlags(argv []string) []string {
	var flags []string
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == "--stop-delay" || argv[i] == "--grace" {
			flags = append(flags, argv[i], argv[i+1])
		}
	}
	return flags
}

// A bad stop-delay annotation is an error naming it, its value and what is
// accepted; the resource is left as it was.
func TestStopDelayErrors(t *testing.T) {
	for _, tt := range []struct{ annotations, want string }{
		{"    tandem.sh/stop-delay.s1: \"1\"\n", `tandem.sh/stop-delay.s1: "1": expected a duration such as 1s or 500ms`},
		{"    tandem.sh/stop-delay.m: 1s\n",
			`tandem.sh/stop-delay.m names container "m", which is not a sidecar of this pod (sidecars: s1, s2)`},
	} {
		for _, mode := range []Mode{Classic, Native} {
			src := budgetPod(tt.annotations)
			r, out := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Mode = mode }))
			if r.Status != Failed || !strings.Contains(r.String(), tt.want) {
				t.Errorf("%s: report %q; want not injected, with %q", mode, r, tt.want)
			}
			unchanged(t, src, out)
		}
	}
}

// A collector whose distribution tails files (contrib, k8s) waits its
// preset's stop delay with no annotation, taken from its grace share; the
// pod's annotation wins; the core distribution, which has no filelog
// receiver, and a shipper without a preset delay get none.
func TestPresetStopDelay(t *testing.T) {
	for _, tt := range []struct {
		image       string
		annotations []string
		want        []string
	}{
		{"otel/opentelemetry-collector-contrib:0.159.0", nil, []string{"--stop-delay", "1s", "--grace", "29s"}},
		{"otel/opentelemetry-collector-k8s:0.159.0", nil, []string{"--stop-delay", "1s", "--grace", "29s"}},
		{"otel/opentelemetry-collector-contrib:0.159.0", []string{StopDelayKey + "logs", "3s"}, []string{"--stop-delay", "3s", "--grace", "27s"}},
		{"otel/opentelemetry-collector:0.159.0", nil, []string{"--grace", "30s"}},
		{"fluent/fluent-bit:5.1.1", nil, nil}, // its 10 s is tandem sidecar's default --grace
	} {
		r, out := injectYAML(t, shipperPod(tt.image, "120", tt.annotations...), offline())
		if r.Status != Injected {
			t.Fatalf("%s: %s", tt.image, r)
		}
		if got := stopFlags(listOf(t, out, "logs", "command")); !slices.Equal(got, tt.want) {
			t.Errorf("%s %q: stop flags %q; want %q", tt.image, tt.annotations, got, tt.want)
		}
	}
}

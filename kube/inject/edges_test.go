package inject

import (
	"strings"
	"testing"
)

// A mount at the directory tandem mounts its volume at collides however
// its path is spelled: the API server takes both mounts, and the two
// volumes would meet at one directory.
func TestMountCollisionAsDirectory(t *testing.T) {
	for _, tt := range []struct {
		at      string
		install Install
		want    string
	}{
		{"/run/tandem/", InitCopy, "at /run/tandem/ (that is /run/tandem)"},
		{"//run/tandem", InitCopy, "at //run/tandem (that is /run/tandem)"},
		{"/run/./tandem", InitCopy, "at /run/./tandem (that is /run/tandem)"},
		{"run/tandem", InitCopy, "at run/tandem (that is /run/tandem)"},
		{"/run/tandem-bin/", ImageVolume, "at /run/tandem-bin/ (that is /run/tandem-bin)"},
		{"/run/tandem-bin/", InitCopy, ""},
		{"/run/tandem/data", InitCopy, ""},
	} {
		src := strings.ReplaceAll(installPod, "mountPath: /data", "mountPath: "+tt.at)
		r, _ := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Install = tt.install }))
		switch {
		case tt.want == "" && r.Status != Injected:
			t.Errorf("%s (%s): %s; want injected", tt.at, tt.install, r)
		case tt.want != "" && (r.Status != Failed || !strings.Contains(r.Err.Error(), `container "side" already mounts something `+tt.want+", where tandem mounts its volume")):
			t.Errorf("%s (%s): %s; want failed: %s", tt.at, tt.install, r, tt.want)
		}
	}
}

// A tandem.sh/ annotation tandem does not know is a typo: refused, naming
// it, the one likely meant, and every one tandem reads; a pod whose only
// sign of tandem is the typo too, rather than left uninjected.
func TestUnknownAnnotation(t *testing.T) {
	known := "tandem's are tandem.sh/sidecars, tandem.sh/needs, "
	for _, tt := range []struct{ annotations, want string }{
		{"    tandem.sh/need: s1\n", "unknown annotation tandem.sh/need: did you mean tandem.sh/needs? " + known},
		{"    tandem.sh/max-restart.s1: \"3\"\n", "unknown annotation tandem.sh/max-restart.s1: did you mean tandem.sh/max-restarts.s1? "},
		{"    tandem.sh/max-restarts: \"3\"\n", "unknown annotation tandem.sh/max-restarts: did you mean tandem.sh/max-restarts.CONTAINER? "},
		{"    tandem.sh/sidecar-grac.s1: 3s\n", "unknown annotation tandem.sh/sidecar-grac.s1: did you mean tandem.sh/sidecar-grace.s1? "},
		{"    tandem.sh/sidecar-grac: 3s\n", "unknown annotation tandem.sh/sidecar-grac: did you mean tandem.sh/sidecar-grace? "},
		{"    tandem.sh/zzzzzzzz: x\n", "unknown annotation tandem.sh/zzzzzzzz: " + known},
		{"    tandem.sh/inject: \"no\"\n", `tandem.sh/inject: "no": expected disabled or false to leave the pod alone, or enabled or true`},
	} {
		for _, src := range []string{budgetPod(tt.annotations), strings.Replace(budgetPod(tt.annotations), "    tandem.sh/sidecars: s1,s2\n", "", 1)} {
			r, out := injectYAML(t, src, testOptions())
			if r.Status != Failed || !strings.Contains(r.String(), tt.want) {
				t.Errorf("report %q; want not injected, with %q", r, tt.want)
			}
			unchanged(t, src, out)
		}
	}
	for _, key := range []string{"tandem.sh/stop-delay.s1: 1s", "tandem.sh/sidecar-grace.s1: 3s", "tandem.sh/inject: \"true\"", "tandem.sh/inject: enabled", "tandem.sh/policy: x", "example.com/need: x"} {
		if r, _ := injectYAML(t, budgetPod("    "+key+"\n"), testOptions()); r.Status != Injected {
			t.Errorf("%s: %s; want injected", key, r)
		}
	}
}

// tandem.sh/inject: "false" leaves the pod alone, as "disabled" does.
func TestInjectFalseOptsOut(t *testing.T) {
	src := budgetPod("    tandem.sh/inject: \"false\"\n")
	r, out := injectYAML(t, src, testOptions())
	if r.Status != Skipped || r.Cause != OptedOut || !strings.Contains(r.String(), "tandem.sh/inject: false") {
		t.Errorf("report %q (cause %q); want skipped, opted out", r, r.Cause)
	}
	unchanged(t, src, out)
}

// A budget is a count in digits, and its window at least tandem's first
// restart delay: anything else is refused, saying what is expected.
func TestRestartBudgetStrict(t *testing.T) {
	for _, tt := range []struct{ annotations, want string }{
		{"    tandem.sh/max-restarts.s1: \" 3\"\n", `tandem.sh/max-restarts.s1: " 3": expected a whole number of restarts, e.g. "3" ("0": no budget), in digits alone`},
		{"    tandem.sh/max-restarts.s1: \"+3\"\n", `tandem.sh/max-restarts.s1: "+3": expected a whole number`},
		{"    tandem.sh/max-restarts.s1: \"3\"\n    tandem.sh/restart-window.s1: 1ns\n",
			`tandem.sh/restart-window.s1: "1ns": expected a duration such as 10m or 90s, of at least 1s (tandem's first restart waits 1s: a shorter window never holds two exits)`},
		{"    tandem.sh/max-restarts.s1: \"3\"\n    tandem.sh/restart-window.s1: 999ms\n", `tandem.sh/restart-window.s1: "999ms": expected a duration`},
		{"    tandem.sh/max-restarts.s1: \"3\"\n    tandem.sh/restart-window.s1: +10m\n", `tandem.sh/restart-window.s1: "+10m": expected a duration`},
	} {
		src := budgetPod(tt.annotations)
		r, out := injectYAML(t, src, testOptions())
		if r.Status != Failed || !strings.Contains(r.String(), tt.want) {
			t.Errorf("report %q; want not injected, with %q", r, tt.want)
		}
		unchanged(t, src, out)
	}
	if r, _ := injectYAML(t, budgetPod("    tandem.sh/max-restarts.s1: \"3\"\n    tandem.sh/restart-window.s1: 1s\n"), testOptions()); r.Status != Injected {
		t.Errorf("a window of 1s: %s; want injected", r)
	}
}

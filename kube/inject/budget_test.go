package inject

import (
	"slices"
	"strings"
	"testing"
)

// budgetPod is a Job's pod with a main and two sidecars, s1 and s2, and
// the annotations given.
func budgetPod(annotations string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    tandem.sh/sidecars: s1,s2\n" + annotations +
		"spec:\n  restartPolicy: Never\n  containers:\n" +
		"    - {name: m, image: app:1, command: [/m]}\n" +
		"    - {name: s1, image: app:1, command: [/s1]}\n" +
		"    - {name: s2, image: app:1, command: [/s2]}\n"
}

// The budget annotations become the sidecar's --max-restarts and
// --restart-window in both modes; a sidecar the mains need has 3 restarts
// unless its annotation says otherwise ("0": none); a sidecar with no
// budget has none of these flags but classic mode's --restart always, and
// native mode's --restart during-deletion (tandem's restarts while the pod
// is being deleted, when the kubelet makes none).
func TestRestartBudget(t *testing.T) {
	for _, tt := range []struct {
		name, annotations string
		mode              Mode
		s1, s2            []string // the budget flags of each
	}{
		{"classic, stated", "    tandem.sh/max-restarts.s1: \"5\"\n    tandem.sh/restart-window.s1: 2m\n", Classic,
			[]string{"--restart", "always", "--max-restarts", "5", "--restart-window", "120s"}, []string{"--restart", "always"}},
		{"native, stated", "    tandem.sh/max-restarts.s2: \"1\"\n", Native,
			duringDeletion, []string{"--restart", "always", "--max-restarts", "1"}},
		{"native, needed: the default", "    tandem.sh/needs: s1\n", Native,
			[]string{"--restart", "always", "--max-restarts", "3"}, duringDeletion},
		{"classic, needed, window stated", "    tandem.sh/needs: s1\n    tandem.sh/restart-window.s1: 30s\n", Classic,
			[]string{"--restart", "always", "--max-restarts", "3", "--restart-window", "30s"}, []string{"--restart", "always"}},
		{"native, needed, budget turned off", "    tandem.sh/needs: s1\n    tandem.sh/max-restarts.s1: \"0\"\n", Native,
			duringDeletion, duringDeletion},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, out := injectYAML(t, budgetPod(tt.annotations), testOptionsWith(func(o *Options) { o.Mode = tt.mode }))
			if r.Status != Injected {
				t.Fatalf("%s", r)
			}
			for name, want := range map[string][]string{"s1": tt.s1, "s2": tt.s2} {
				if got := budgetFlags(listOf(t, out, name, "command")); !slices.Equal(got, want) {
					t.Errorf("%s: budget flags %q; want %q", name, got, want)
				}
			}
		})
	}
}

// duringDeletion is a native sidecar's restart flag without a budget.
var duringDeletion = []string{"--restart", "during-deletion"}

// budgetFlags are the restart flags of a command line, with their values.
func budgetFlags(argv []string) []string {
	var flags []string
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == "--restart" || argv[i] == "--max-restarts" || argv[i] == "--restart-window" {
			flags = append(flags, argv[i], argv[i+1])
		}
	}
	return flags
}

// A bad budget annotation is an error naming it, its value and what is
// accepted; the resource is left as it was.
func TestRestartBudgetErrors(t *testing.T) {
	for _, tt := range []struct{ annotations, want string }{
		{"    tandem.sh/max-restarts.s1: three\n",
			`tandem.sh/max-restarts.s1: "three": expected a whole number of restarts, e.g. "3" ("0": no budget)`},
		{"    tandem.sh/max-restarts.s1: \"-1\"\n", `tandem.sh/max-restarts.s1: "-1": expected a whole number`},
		{"    tandem.sh/max-restarts.s1: \"2\"\n    tandem.sh/restart-window.s1: \"10\"\n",
			`tandem.sh/restart-window.s1: "10": expected a duration such as 10m or 90s`},
		{"    tandem.sh/restart-window.s2: 5m\n",
			`tandem.sh/restart-window.s2: "5m" has no effect without a budget: set tandem.sh/max-restarts.s2 too`},
		{"    tandem.sh/max-restarts.m: \"2\"\n",
			`tandem.sh/max-restarts.m names container "m", which is not a sidecar of this pod (sidecars: s1, s2)`},
		{"    tandem.sh/max-restarts.s3: \"2\"\n",
			`tandem.sh/max-restarts.s3 names container "s3", which is not a sidecar of this pod`},
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

package inject

import (
	"slices"
	"strings"
	"testing"
)

var startHookCases = []struct {
	name    string
	probe   string // the sidecar's fields, indented by six spaces
	want    []string
	warning string
}{
	{"no probe, no hook", "", nil, ""},
	{"tcpSocket, default budget 10s × 3",
		"      readinessProbe:\n        tcpSocket:\n          port: 5432\n",
		[]string{"tcp:127.0.0.1:5432", "30s"}, ""},
	{"startupProbe wins over readinessProbe; initialDelay + period × failures",
		"      readinessProbe:\n        tcpSocket:\n          port: 1\n" +
			"      startupProbe:\n        tcpSocket:\n          port: 2\n        initialDelaySeconds: 5\n        periodSeconds: 1\n        failureThreshold: 4\n",
		[]string{"tcp:127.0.0.1:2", "9s"}, ""},
	{"httpGet with a host and no leading slash",
		"      readinessProbe:\n        httpGet:\n          host: localhost\n          port: 15021\n          path: healthz/ready\n",
		[]string{"http://localhost:15021/healthz/ready", "30s"}, ""},
	{"httpGet over HTTPS is checked as TCP",
		"      readinessProbe:\n        httpGet:\n          scheme: HTTPS\n          port: 8443\n          path: /\n",
		[]string{"tcp:127.0.0.1:8443", "30s"}, ""},
	{"exec",
		"      readinessProbe:\n        exec:\n          command: [pg_isready, -h, 127.0.0.1]\n",
		[]string{"exec:pg_isready -h 127.0.0.1", "30s"}, ""},
	{"exec with spaces in an argument cannot be a condition",
		"      readinessProbe:\n        exec:\n          command: [sh, -c, pg_isready -h 127.0.0.1]\n",
		nil, `sidecar "side" has no start hook: exec probe argument "pg_isready -h 127.0.0.1"`},
	{"grpc has no condition",
		"      readinessProbe:\n        grpc:\n          port: 9000\n",
		nil, `sidecar "side" has no start hook: probe: expected httpGet, tcpSocket or exec`},
	{"a named port that does not exist",
		"      readinessProbe:\n        tcpSocket:\n          port: admin\n",
		nil, `probe port "admin": expected a number or the name of one of the container's ports`},
	{"an existing postStart hook is kept",
		"      readinessProbe:\n        tcpSocket:\n          port: 5432\n      lifecycle:\n        postStart:\n          exec:\n            command: [/warm-up]\n",
		[]string{"/warm-up"}, `sidecar "side" keeps its own postStart hook`},
}

// A sidecar's probe becomes a postStart hook that holds the mains' start.
func TestStartHook(t *testing.T) {
	for _, tt := range startHookCases {
		t.Run(tt.name, func(t *testing.T) {
			r, out := injectYAML(t, pod(sprintf(twoContainers, "app:1")+tt.probe), testOptions())
			if r.Status != Injected {
				t.Fatalf("%s", r)
			}
			got := listOf(t, out, "side", "lifecycle", "postStart", "exec", "command")
			want := tt.want
			if len(want) == 2 {
				want = []string{binary, "wait", "--for", want[0], "--timeout", want[1]}
			}
			if !slices.Equal(got, want) {
				t.Errorf("postStart %q; want %q", got, want)
			}
			switch {
			case tt.warning == "" && len(r.Warnings) > 0:
				t.Errorf("warnings %q; want none", r.Warnings)
			case tt.warning != "" && (len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], tt.warning)):
				t.Errorf("warnings %q; want one containing %q", r.Warnings, tt.warning)
			case tt.warning != "" && !strings.Contains(r.String(), "; warning: "+r.Warnings[0]):
				t.Errorf("report %q does not carry the warning", r)
			}
		})
	}
}

// Sidecars start first, in their own order, then the mains in theirs.
func TestSidecarsMoveFirst(t *testing.T) {
	src := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    tandem.sh/sidecars: s2, s1\nspec:\n  containers:\n" +
		"    - {name: m1, image: app:1, command: [/a]}\n    - {name: s1, image: app:1, command: [/a]}\n" +
		"    - {name: m2, image: app:1, command: [/a]}\n    - {name: s2, image: app:1, command: [/a]}\n"
	r, out := injectYAML(t, src, testOptions())
	if r.Status != Injected {
		t.Fatalf("%s", r)
	}
	var order []string
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- {name: "); ok {
			order = append(order, strings.SplitN(name, ",", 2)[0])
		}
	}
	if want := []string{"s1", "s2", "m1", "m2"}; !slices.Equal(order, want) {
		t.Errorf("containers in order %q; want %q\n%s", order, want, out)
	}
	if !strings.Contains(out, "kubectl.kubernetes.io/default-container: m1\n") {
		t.Errorf("default container is not m1:\n%s", out)
	}
}

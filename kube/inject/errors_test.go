package inject

import (
	"context"
	"strings"
	"testing"
)

var notInjectedCases = []struct {
	name string
	src  string
	opts func(*Options)
	want []string // substrings of the report line
}{
	{"no command and no lookups",
		pod("  containers:\n    - name: main\n      image: app:1\n    - name: side\n      image: app:1\n      command: [/s]\n"),
		func(o *Options) { o.Resolver = nil },
		[]string{`pod/p: not injected: container "main" (image "app:1"): no command, and image lookups are off (--resolve none)`, "give the container a command:"}},
	{"an image that cannot be read",
		pod("  containers:\n    - name: main\n      image: registry/missing:1\n    - name: side\n      image: app:1\n      command: [/s]\n"), nil,
		[]string{`container "main" (image "registry/missing:1"): read the image config: MANIFEST_UNKNOWN`, "give the container a command:"}},
	{"a sidecar's stop signal that cannot be read",
		pod("  containers:\n    - name: main\n      image: app:1\n      command: [/m]\n    - name: side\n      image: registry/missing:1\n      command: [/s]\n"), nil,
		[]string{`container "side" (image "registry/missing:1")`,
			"state the container's stop signal with the pod template annotation tandem.sh/stop-signal.side: QUIT (the signal its image's STOPSIGNAL names; TERM if none), or with lifecycle.stopSignal",
			"--resolve none"}},
	{"an image that says nothing to run",
		pod("  containers:\n    - name: main\n      image: nothing:1\n    - name: side\n      image: app:1\n      command: [/s]\n"), nil,
		[]string{`container "main" (image "nothing:1"): neither the container nor its image says what to run`}},
	{"a bad STOPSIGNAL",
		pod("  containers:\n    - name: main\n      image: app:1\n    - name: side\n      image: badsignal:1\n"), nil,
		[]string{`container "side" (image "badsignal:1"): the image's STOPSIGNAL: stop signal "SIG KILL"`, "annotation tandem.sh/stop-signal.side: QUIT"}},
	{"the annotation names a container the pod does not have",
		strings.Replace(pod("  containers:\n    - name: main\n      image: app:1\n"), "sidecars: side", "sidecars: side,proxy", 1), nil,
		[]string{`tandem.sh/sidecars names container "side", which this pod does not have (it has main): fix the annotation`}},
	{"the annotation names an init container",
		pod("  initContainers:\n    - name: side\n      image: app:1\n      command: [/s]\n  containers:\n    - name: main\n      image: app:1\n      command: [/m]\n"), nil,
		[]string{`tandem.sh/sidecars names "side", an init container that runs to completion before the containers start (no restartPolicy: Always)`,
			"give it restartPolicy: Always (a native sidecar, Kubernetes 1.29+), which tandem wraps in place"}},
	{"a stop signal for an init container",
		strings.Replace(pod("  initContainers:\n    - name: migrate\n      image: app:1\n      command: [/s]\n"+sprintf(twoContainers, "app:1")),
			"tandem.sh/sidecars: side", "tandem.sh/sidecars: side\n    tandem.sh/stop-signal.migrate: QUIT", 1), nil,
		[]string{`tandem.sh/stop-signal.migrate names "migrate", an init container that runs to completion`, "remove it from the annotation"}},
	{"a volume named tandem",
		pod("  volumes:\n    - name: tandem\n      emptyDir: {}\n" + sprintf(twoContainers, "app:1")), nil,
		[]string{`the pod already has a volume named "tandem"`, "rename that volume"}},
	{"an init container named tandem-install",
		pod("  initContainers:\n    - name: tandem-install\n      image: app:1\n" + sprintf(twoContainers, "app:1")), nil,
		[]string{`the pod already has a container named "tandem-install"`, "rename that container"}},
	{"a main named tandem-install",
		pod(strings.Replace(sprintf(twoContainers, "app:1"), "name: main", "name: tandem-install", 1)), nil,
		[]string{`the pod already has a container named "tandem-install"`}},
	{"something mounted at /run/tandem",
		pod(sprintf(twoContainers, "app:1") + "      volumeMounts:\n        - name: run\n          mountPath: /run/tandem\n"), nil,
		[]string{`container "side" already mounts something at /run/tandem`}},
	{"every container a sidecar",
		pod("  containers:\n    - name: side\n      image: app:1\n"), nil,
		[]string{"every container is named a sidecar (side)"}},
	{"no containers",
		pod("  restartPolicy: Never\n"), nil,
		[]string{"pod/p: not injected: the pod template has no containers list"}},
	{"a command that is not a list of strings",
		pod("  containers:\n    - name: main\n      image: app:1\n      command: /app --flag\n    - name: side\n      image: app:1\n"), nil,
		[]string{`container "main" (image "app:1"): command and args: expected lists of strings`}},
	{"a container that already runs tandem",
		pod("  containers:\n    - name: main\n      image: app:1\n      command: [/tandem-bin/tandem, main, --]\n      args: [/m]\n    - name: side\n      image: app:1\n      command: [/s]\n"), nil,
		[]string{`pod/p: not injected: already wrapped: container "main" runs tandem (/tandem-bin/tandem main --)`, "drop the sidecar annotation"}},
	{"a pod wrapped by hand, volume and all",
		pod("  volumes: [{name: tandem, emptyDir: {}}]\n  initContainers:\n    - name: tandem-install\n      image: tandem:1\n      command: [/tandem, install, /run/tandem]\n" +
			"  containers:\n    - name: main\n      image: app:1\n      command: [/run/tandem/tandem, main, --]\n      args: [/m]\n    - name: side\n      image: app:1\n      command: [/s]\n"), nil,
		[]string{`pod/p: not injected: already wrapped: container "main" runs tandem`}},
	{"volumes that are not a list",
		pod("  volumes: tandem\n" + sprintf(twoContainers, "app:1")), nil,
		[]string{"pod/p: not injected: spec.volumes (line 8): expected a list"}},
	{"volumeMounts that are not a list",
		pod(sprintf(twoContainers, "app:1") + "      volumeMounts: {a: b}\n"), nil,
		[]string{`container "side" volumeMounts (line 15): expected a list`}},
	{"a Job without a template",
		"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  backoffLimit: 1\n", nil,
		[]string{"job/j: not injected: spec.template: expected a pod template"}},
}

// A resource that cannot be injected is left exactly as it was, and the
// error names the resource, the container, the image and the fix.
func TestNotInjected(t *testing.T) {
	for _, tt := range notInjectedCases {
		t.Run(tt.name, func(t *testing.T) {
			r, out := injectYAML(t, tt.src, testOptionsWith(tt.opts))
			if r.Status != Failed {
				t.Fatalf("status %d (%s); want Failed", r.Status, r)
			}
			for _, want := range tt.want {
				if !strings.Contains(r.String(), want) {
					t.Errorf("report %q\ndoes not contain %q", r, want)
				}
			}
			unchanged(t, tt.src, out)
		})
	}
}

func TestSkipped(t *testing.T) {
	tests := []struct {
		name, src, reason string
		cause             SkipCause
	}{
		{"no sidecars named",
			"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n" + sprintf(twoContainers, "app:1"),
			"no sidecars named: annotate the pod template tandem.sh/sidecars", NoSidecars},
		{"opted out",
			strings.Replace(pod(sprintf(twoContainers, "app:1")), "  annotations:\n", "  annotations:\n    tandem.sh/inject: disabled\n", 1),
			"tandem.sh/inject: disabled", OptedOut},
		{"already injected",
			strings.Replace(pod(sprintf(twoContainers, "app:1")), "  annotations:\n", "  annotations:\n    tandem.sh/injected: \"v0.9.0\"\n", 1),
			"already injected: tandem.sh/injected: v0.9.0", AlreadyInjected},
		{"not a Kubernetes object", "settings:\n  a: 1\n", "no kind: not a Kubernetes object", NotAnObject},
		{"--sidecar names nothing in the pod",
			"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n" + sprintf(twoContainers, "app:1"),
			"no sidecars named: annotate the pod template tandem.sh/sidecars: \"NAME,...\" or pass --sidecar NAME; --sidecar db-prxy names none of its containers (main, side)", NoSidecars},
		{"the annotation on the Job instead of its template",
			"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    tandem.sh/sidecars: side\nspec:\n  template:\n    spec:\n" +
				"      containers:\n        - {name: main, image: app:1, command: [/m]}\n        - {name: side, image: app:1, command: [/s]}\n",
			"the tandem.sh/sidecars annotation is on the Job's metadata: it belongs on its pod template's (spec.template.metadata.annotations)", NoSidecars},
		{"a kind without a pod template",
			"apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  ports: [{port: 5432}]\n",
			"kind Service has no pod template", NoPodTemplate},
		{"a custom resource named like a workload",
			"apiVersion: example.com/v1\nkind: Job\nmetadata:\n  name: j\n  annotations: {tandem.sh/sidecars: side}\nspec:\n  template:\n    metadata:\n      annotations:\n        tandem.sh/sidecars: side\n    spec:\n" +
				"      containers:\n        - {name: main, image: app:1, command: [/m]}\n        - {name: side, image: app:1, command: [/s]}\n",
			"apiVersion example.com/v1 Job is not the Kubernetes Job (batch/v1): left as it is", NoPodTemplate},
		{"a workload kind under another version",
			"apiVersion: apps/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    metadata:\n      annotations:\n        tandem.sh/sidecars: side\n    spec:\n" +
				"      containers:\n        - {name: main, image: app:1, command: [/m]}\n        - {name: side, image: app:1, command: [/s]}\n",
			"apiVersion apps/v1 Job is not the Kubernetes Job (batch/v1)", NoPodTemplate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			if strings.Contains(tt.reason, "--sidecar db-prxy") {
				opts.Sidecars = []string{"db-prxy"}
			}
			r, out := injectYAML(t, tt.src, opts)
			if r.Status != Skipped || !strings.Contains(r.String(), tt.reason) {
				t.Errorf("report %q; want skipped (%s...)", r, tt.reason)
			}
			if r.Cause != tt.cause {
				t.Errorf("cause %q; want %q", r.Cause, tt.cause)
			}
			unchanged(t, tt.src, out)
		})
	}
}

// An image with no build for the nodes' platform gets one fix, --platform,
// beside the container's own way out.
func TestWrongPlatformFix(t *testing.T) {
	opts := testOptions()
	opts.Resolver = platformResolver{}
	r, _ := injectYAML(t, pod("  containers:\n    - name: main\n      image: app:1\n    - name: side\n      image: app:1\n      command: [/s]\n"), opts)
	want := `pod/p: not injected (2 problems):
  - container "main" (image "app:1"): read the image config: no image for platform linux/arm64 (image app:1 is for linux/amd64): set --platform to the nodes' platform, or give the container a command: (the image's ENTRYPOINT)
  - container "side" (image "app:1"): read the image config: no image for platform linux/arm64 (image app:1 is for linux/amd64): set --platform to the nodes' platform, or state the container's stop signal`
	if !strings.HasPrefix(r.String(), want) {
		t.Errorf("report\n%s\nwant it to start\n%s", r, want)
	}
}

type platformResolver struct{}

func (platformResolver) Resolve(_ context.Context, image string) (ImageConfig, error) {
	return ImageConfig{}, &PlatformError{Found: "image " + image + " is for linux/amd64", Want: "linux/arm64"}
}

// A sidecar tandem stops once the mains are done ends that stop with 0,
// in either mode: a podFailurePolicy rule without containerName is safe,
// and inject says nothing. A native sidecar with its own preStop hook is
// stopped by the kubelet, whose SIGTERM gives 143: that Job is injected
// with a warning naming the rule and the fix.
func TestPodFailurePolicyWarning(t *testing.T) {
	src := "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  podFailurePolicy:\n    rules:\n" +
		"      - action: FailJob\n        onExitCodes: {operator: NotIn, values: [0, 1]}\n" +
		"  template:\n    metadata:\n      annotations:\n        tandem.sh/sidecars: side\n    spec:\n      restartPolicy: Never\n      containers:\n" +
		"        - {name: main, image: app:1, command: [/m]}\n        - {name: side, image: app:1, command: [/s]}\n"
	for _, mode := range []Mode{Classic, Native} {
		if r, _ := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Mode = mode })); r.Status != Injected || strings.Contains(r.String(), "podFailurePolicy") {
			t.Errorf("%s: report %q; want injected, no warning: the sidecar's stop ends with 0", mode, r)
		}
	}
	hooked := strings.Replace(src, "command: [/s]}", "command: [/s], lifecycle: {preStop: {exec: {command: [/drain]}}}}", 1)
	r, _ := injectYAML(t, hooked, testOptionsWith(func(o *Options) { o.Mode = Native }))
	want := `warning: podFailurePolicy rule 1 (FailJob on exit codes NotIn [0, 1]) matches every container, and sidecar "side" can exit 143 at teardown`
	if r.Status != Injected || !strings.Contains(r.String(), want) || !strings.Contains(r.String(), "add containerName: main to the rule's onExitCodes") {
		t.Errorf("report %q; want injected with %q and its fix", r, want)
	}
	fixed := strings.Replace(hooked, "{operator: NotIn", "{containerName: main, operator: NotIn", 1)
	if r, _ := injectYAML(t, fixed, testOptionsWith(func(o *Options) { o.Mode = Native })); strings.Contains(r.String(), "podFailurePolicy") {
		t.Errorf("a rule for the main alone: %q; want no warning", r)
	}
}

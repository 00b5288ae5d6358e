package inject

import (
	"slices"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"github.com/tandem-sh/tandem/kube/presets"
	"go.yaml.in/yaml/v3"
)

// presetJob runs a main and cloud-sql-proxy v2 from a mirror, with no
// tandem annotation; extra goes into the template's metadata.
func presetJob(extra, proxyArgs string) string {
	return `apiVersion: batch/v1
kind: Job
metadata:
  name: export
spec:
  template:
    metadata:
` + extra + `      labels: {app: export}
    spec:
      restartPolicy: Never
      containers:
        - name: export
          image: app:1
          command: ["/app"]
        - name: db
          image: mirror.example:5000/gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3
          args: [` + proxyArgs + `]
`
}

// presetOptions read the proxy's image as its registry has it: the
// ENTRYPOINT and no STOPSIGNAL.
func presetOptions() Options {
	proxy := ImageConfig{Entrypoint: []string{"/cloud-sql-proxy"}}
	return testOptionsWith(func(o *Options) {
		o.Presets = presets.Builtin()
		o.Resolver = &fakeResolver{images: map[string]ImageConfig{
			"mirror.example:5000/gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3": proxy,
			"mirror.example:5000/gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.30.0": proxy,
		}}
	})
}

// commandOf is the injected command of container name in out.
func commandOf(t *testing.T, out, name string) []string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range contentOf(yamlnode.Path(doc.Content[0], "spec", "template", "spec", "containers")) {
		if yamlnode.ScalarAt(c, "name") == name {
			command, _ := yamlnode.StringsOf(yamlnode.Lookup(c, "command"))
			return command
		}
	}
	t.Fatalf("no container %q in:\n%s", name, out)
	return nil
}

// flagValues are the values of flag in argv, in order.
func flagValues(argv []string, flag string) []string {
	var values []string
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == flag {
			values = append(values, argv[i+1])
		}
	}
	return values
}

// The preset alone makes the proxy a sidecar, needed by the main, ready
// from its own /startup, asked to quit on its admin port; its own args
// are left as they were.
func TestPresetNamesTheSidecar(t *testing.T) {
	r, out := injectYAML(t, presetJob("", `"--quitquitquit", "--health-check", "my-project:region:db"`), presetOptions())
	if r.Status != Injected || !slices.Equal(r.Sidecars, []string{"db"}) {
		t.Fatalf("report %v; want db injected as a sidecar", r)
	}
	if want := "job/export: injected (mains: export; sidecars: db (preset cloud-sql-proxy; its image's ENTRYPOINT from the preset, not looked up))"; r.String() != want {
		t.Errorf("report %q; want %q", r.String(), want)
	}
	sidecar := commandOf(t, out, "db")
	if got := flagValues(sidecar, "--quit-url"); !slices.Equal(got, []string{"http://127.0.0.1:9091/quitquitquit"}) {
		t.Errorf("sidecar --quit-url %v; want the admin port's /quitquitquit", got)
	}
	if got := flagValues(sidecar, "--ready-when"); !slices.Equal(got, []string{"http://127.0.0.1:9090/startup"}) {
		t.Errorf("sidecar --ready-when %v; want its /startup", got)
	}
	if got := flagValues(commandOf(t, out, "export"), "--needs"); !slices.Equal(got, []string{"/run/tandem/db.ready"}) {
		t.Errorf("main --needs %v; want the proxy's ready file (essential by default)", got)
	}
	// Its program is its ENTRYPOINT and its own args, as they were.
	if !strings.Contains(out, `args: [/cloud-sql-proxy, "--quitquitquit", "--health-check", "my-project:region:db"]`) {
		t.Errorf("the proxy's args changed:\n%s", out)
	}
}

// An image read anyway (no command, and a tag the preset states no
// ENTRYPOINT for) whose config sets another STOPSIGNAL (a rebuilt
// mirror) is stopped by the runtime with that: the image wins over the
// preset.
func TestImageStopSignalWinsOverThePreset(t *testing.T) {
	opts := presetOptions()
	opts.Resolver.(*fakeResolver).images["mirror.example:5000/gcr.io/cloud-sql-connectors/cloud-sql-proxy:latest"] =
		ImageConfig{Entrypoint: []string{"/cloud-sql-proxy"}, StopSignal: "SIGQUIT"}
	_, out := injectYAML(t, strings.Replace(presetJob("", `"x"`), ":2.25.3", ":latest", 1), opts)
	if got := flagValues(commandOf(t, out, "db"), "--termination-signal"); !slices.Equal(got, []string{"QUIT"}) {
		t.Errorf("--termination-signal %v; want the image's QUIT", got)
	}
}

// With a command and --resolve none, the preset states the signal: no
// lookup, and no warning that SIGTERM was assumed.
func TestPresetSignalWithoutLookup(t *testing.T) {
	src := strings.Replace(presetJob("", `"x"`), "          args: [", "          command: [\"/cloud-sql-proxy\"]\n          args: [", 1)
	r, _ := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Presets = presets.Builtin(); o.Resolver = nil }))
	if r.Status != Injected || len(r.Warnings) != 0 {
		t.Errorf("report %q; want injected without a warning", r.String())
	}
}

// Without --quitquitquit and --health-check the proxy serves neither
// endpoint: no quit URL, and readiness from nothing but its start.
func TestPresetEndpointsNeedTheirFlags(t *testing.T) {
	_, out := injectYAML(t, presetJob("", `"my-project:region:db"`), presetOptions())
	sidecar := commandOf(t, out, "db")
	if got := flagValues(sidecar, "--quit-url"); got != nil {
		t.Errorf("--quit-url %v without --quitquitquit; want none", got)
	}
	if got := flagValues(sidecar, "--ready-when"); got != nil {
		t.Errorf("--ready-when %v without --health-check; want none", got)
	}
	if got := flagValues(sidecar, "--termination-signal"); got != nil {
		t.Errorf("--termination-signal %v; want none (the preset says TERM)", got)
	}
}

// What the pod states wins: its own stop signal and needs.
func TestPodStatementsWinOverThePreset(t *testing.T) {
	extra := `      annotations:
        tandem.sh/stop-signal.db: INT
        tandem.sh/needs: ""
`
	r, out := injectYAML(t, presetJob(extra, `"--health-check", "x"`), presetOptions())
	if r.Status != Injected {
		t.Fatalf("report %v", r)
	}
	if got := flagValues(commandOf(t, out, "db"), "--termination-signal"); !slices.Equal(got, []string{"INT"}) {
		t.Errorf("--termination-signal %v; want the annotation's INT", got)
	}
	if got := flagValues(commandOf(t, out, "export"), "--needs"); got != nil {
		t.Errorf("main --needs %v; want none: the pod's empty tandem.sh/needs wins", got)
	}
}

// tandem.sh/presets: disabled and --presets=false (no table) turn them
// off; a bad value is refused, naming it.
func TestPresetsTurnedOff(t *testing.T) {
	r, _ := injectYAML(t, presetJob("      annotations: {tandem.sh/presets: disabled}\n", `"x"`), presetOptions())
	if r.Status != Skipped || r.Cause != NoSidecars {
		t.Errorf("disabled: report %v; want skipped, no sidecars", r)
	}
	r, _ = injectYAML(t, presetJob("", `"x"`), testOptionsWith(func(o *Options) { o.Presets = nil }))
	if r.Status != Skipped || r.Cause != NoSidecars {
		t.Errorf("no presets: report %v; want skipped, no sidecars", r)
	}
	r, _ = injectYAML(t, presetJob("      annotations: {tandem.sh/presets: off}\n", `"x"`), presetOptions())
	if r.Status != Failed || !strings.Contains(r.String(), `tandem.sh/presets: "off": expected disabled or enabled`) {
		t.Errorf("bad value: report %q; want it refused", r.String())
	}
}

// A pod that runs the known sidecar alone (a proxy's own Deployment) is
// left alone rather than refused for having no main.
func TestPresetAloneIsNotInjected(t *testing.T) {
	src := strings.Replace(presetJob("", `"x"`), "        - name: export\n          image: app:1\n          command: [\"/app\"]\n", "", 1)
	r, _ := injectYAML(t, src, presetOptions())
	if r.Status != Skipped || r.Cause != NoSidecars {
		t.Errorf("report %v; want skipped, no sidecars", r)
	}
	// It says what is wrong: not that no sidecar is named, but that there
	// is no main.
	if want := "job/export: skipped (no main to wrap: every container is a known sidecar (db: preset cloud-sql-proxy), as in the sidecar's own workload)"; r.String() != want {
		t.Errorf("report %q; want %q", r, want)
	}
}

// A tag newer than the one read is still a match, and the report says so.
func TestPresetNewerTagIsSaid(t *testing.T) {
	src := strings.Replace(presetJob("", `"x"`), "cloud-sql-proxy:2.25.3", "cloud-sql-proxy:2.30.0", 1)
	r, _ := injectYAML(t, src, presetOptions())
	want := "db (preset cloud-sql-proxy; tag 2.30.0 is newer than the 2.25.3 it was verified at;"
	if !strings.Contains(r.String(), want) {
		t.Errorf("report %q; want it to say %q", r.String(), want)
	}
}

// meshJob is a Job whose only other container is a mesh proxy of image.
func meshJob(image, proxyExtra string) string {
	return `apiVersion: batch/v1
kind: Job
metadata:
  name: mesh
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: work
          image: app:1
          command: ["/app"]
        - name: mesh-proxy
          image: ` + image + `
          command: ["/proxy"]
` + proxyExtra
}

// istio-proxy as its injector writes it, probe and all, in a pod that
// tandem sees for the first time (the webhook reinvoked after Istio's):
// a sidecar, its own probe kept, asked to quit on 15020, not essential.
func TestPresetIstioProxyWrapped(t *testing.T) {
	probe := `          readinessProbe:
            httpGet: {path: /healthz/ready, port: 15021}
`
	r, out := injectYAML(t, meshJob("docker.io/istio/proxyv2:1.24.0", probe), presetOptions())
	if r.Status != Injected || !strings.Contains(r.String(), "mesh-proxy (preset istio-proxy)") {
		t.Fatalf("report %q; want mesh-proxy injected by its preset", r.String())
	}
	sidecar := commandOf(t, out, "mesh-proxy")
	if got := flagValues(sidecar, "--quit-url"); !slices.Equal(got, []string{"http://127.0.0.1:15020/quitquitquit"}) {
		t.Errorf("--quit-url %v; want istio's", got)
	}
	if got := flagValues(commandOf(t, out, "work"), "--needs"); got != nil {
		t.Errorf("main --needs %v; want none (a mesh proxy is not essential by default)", got)
	}
	if !strings.Contains(out, "http://127.0.0.1:15021/healthz/ready") {
		t.Errorf("the pod's own probe is not the start hook's condition:\n%s", out)
	}
}

// linkerd-proxy's /shutdown is served only when its variable is true.
func TestPresetLinkerdShutdownNeedsItsVariable(t *testing.T) {
	image := "cr.l5d.io/linkerd/proxy:edge-24.11.8"
	_, out := injectYAML(t, meshJob(image, ""), presetOptions())
	if got := flagValues(commandOf(t, out, "mesh-proxy"), "--quit-url"); got != nil {
		t.Errorf("--quit-url %v without LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED; want none", got)
	}
	env := `          env:
            - {name: LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED, value: "true"}
`
	_, out = injectYAML(t, meshJob(image, env), presetOptions())
	if got := flagValues(commandOf(t, out, "mesh-proxy"), "--quit-url"); !slices.Equal(got, []string{"http://127.0.0.1:4191/shutdown"}) {
		t.Errorf("--quit-url %v; want linkerd's /shutdown", got)
	}
}

// The ports the proxy's own flags or CSQL_PROXY_ variables set are where
// tandem waits for its readiness and calls its quit URL: the ready file
// appears, and the main that needs it runs.
func TestPresetEndpointsOnTheSidecarsPorts(t *testing.T) {
	for name, tt := range map[string]struct{ args, env string }{
		"flags":     {`"--quitquitquit", "--admin-port", "9192", "--health-check", "--http-port=9191", "p:r:i"`, ""},
		"variables": {`"p:r:i"`, "          env:\n            - {name: CSQL_PROXY_QUITQUITQUIT, value: \"true\"}\n            - {name: CSQL_PROXY_ADMIN_PORT, value: \"9192\"}\n            - {name: CSQL_PROXY_HEALTH_CHECK, value: \"true\"}\n            - {name: CSQL_PROXY_HTTP_PORT, value: \"9191\"}\n"},
	} {
		r, out := injectYAML(t, presetJob("", tt.args)+tt.env, presetOptions())
		if r.Status != Injected || len(r.Warnings) != 0 {
			t.Fatalf("%s: report %q; want injected without a warning", name, r)
		}
		sidecar := commandOf(t, out, "db")
		if got := flagValues(sidecar, "--quit-url"); !slices.Equal(got, []string{"http://127.0.0.1:9192/quitquitquit"}) {
			t.Errorf("%s: --quit-url %v; want its --admin-port's", name, got)
		}
		if got := flagValues(sidecar, "--ready-when"); !slices.Equal(got, []string{"http://127.0.0.1:9191/startup"}) {
			t.Errorf("%s: --ready-when %v; want its --http-port's", name, got)
		}
	}
}

// A port that is not a number ($(VAR) from a secret, say) leaves that
// endpoint out with a warning, rather than waiting on the default port.
func TestPresetPortNotANumber(t *testing.T) {
	r, out := injectYAML(t, presetJob("", `"--health-check", "--http-port", "$(PORT)", "p:r:i"`), presetOptions())
	if r.Status != Injected || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], `sidecar "db": preset cloud-sql-proxy's readiness left out: --http-port "$(PORT)": not a port number`) {
		t.Fatalf("report %q; want a warning naming the flag and its value", r)
	}
	if got := flagValues(commandOf(t, out, "db"), "--ready-when"); len(got) != 0 {
		t.Errorf("--ready-when %v; want none", got)
	}
}

// daprd's quit call goes to the HTTP port its --dapr-http-port sets.
func TestDaprdQuitOnItsPort(t *testing.T) {
	src := strings.Replace(presetJob("", `"--app-id", "export", "--dapr-http-port", "3501"`),
		"mirror.example:5000/gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3", "daprio/daprd:1.15.0", 1)
	src = strings.Replace(src, "          args: [", "          command: [/daprd]\n          args: [", 1)
	r, out := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Presets = presets.Builtin(); o.Resolver = nil }))
	if r.Status != Injected {
		t.Fatalf("report %q", r)
	}
	if got := flagValues(commandOf(t, out, "db"), "--quit-url"); !slices.Equal(got, []string{"http://127.0.0.1:3501/v1.0/shutdown"}) {
		t.Errorf("--quit-url %v; want its --dapr-http-port's /v1.0/shutdown", got)
	}
}

// A proxy told to exit 0 on SIGTERM, which the kubelet stops (its own
// preStop hook, native mode), trips a podFailurePolicy rule only by the
// 137 of a kill after its grace: the warning says 137, not 143.
func TestPodFailureWarningExitZeroProxy(t *testing.T) {
	src := strings.Replace(presetJob("", `"--exit-zero-on-sigterm", "p:r:i"`), "spec:\n  template:",
		"spec:\n  podFailurePolicy:\n    rules:\n      - action: FailJob\n        onExitCodes: {operator: NotIn, values: [0, 1]}\n  template:", 1)
	src += "          lifecycle: {preStop: {exec: {command: [/drain]}}}\n"
	opts := presetOptions()
	opts.Mode = Native
	r, _ := injectYAML(t, src, opts)
	// The first warning says the preStop hook keeps db from tandem's stop.
	if r.Status != Injected || len(r.Warnings) != 2 {
		t.Fatalf("report %q; want injected with two warnings", r)
	}
	if want := `sidecar "db" can exit 137 at teardown`; !strings.Contains(r.Warnings[1], want) {
		t.Errorf("warning %q; want %q", r.Warnings[1], want)
	}
}

// A tag older than the one the preset was read at still matches, with a
// warning in the report line: its flags may differ.
func TestPresetOlderTagWarned(t *testing.T) {
	src := strings.Replace(presetJob("", `"x"`), "cloud-sql-proxy:2.25.3", "cloud-sql-proxy:2.14.1", 1)
	opts := presetOptions()
	opts.Resolver.(*fakeResolver).images["mirror.example:5000/gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1"] = ImageConfig{Entrypoint: []string{"/cloud-sql-proxy"}}
	r, _ := injectYAML(t, src, opts)
	want := "; warning: sidecar \"db\": tag 2.14.1 is older than the 2.25.3 preset cloud-sql-proxy was verified at: check that it serves what `tandemctl presets` says"
	if r.Status != Injected || !strings.Contains(r.String(), want) {
		t.Errorf("report %q; want %q", r, want)
	}
}

// An image that names a preset's repository in upper case is not an
// image reference: it is not taken for the preset, and the report says
// why, rather than injecting a pod the kubelet cannot pull.
func TestPresetInvalidReferenceNotMatched(t *testing.T) {
	src := strings.Replace(presetJob("", `"x"`), "mirror.example:5000/gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.25.3", "gcr.io/Cloud-SQL-Connectors/Cloud-SQL-Proxy:2.25.3", 1)
	r, _ := injectYAML(t, src, presetOptions())
	want := `container "db": image "gcr.io/Cloud-SQL-Connectors/Cloud-SQL-Proxy:2.25.3" is not an image reference (`
	if r.Status != Skipped || !strings.Contains(r.Reason, want) || !strings.Contains(r.Reason, "not taken for preset cloud-sql-proxy") {
		t.Errorf("report %q; want skipped, saying %q", r, want)
	}
}

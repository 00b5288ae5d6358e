package inject

import (
	"slices"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/kube/presets"
)

// shipperJob is a Job's pod: it runs a main and a sidecar of image with no command and no
// tandem annotation; args, when not "", are the sidecar's.
func shipperJob(image, args string) string {
	src := `apiVersion: v1
kind: Pod
metadata:
  name: export
spec:
  restartPolicy: Never
  containers:
    - name: export
      image: app:1
      command: ["/app"]
    - name: logs
      image: ` + image + "\n"
	if args != "" {
		src += "      args: [" + args + "]\n"
	}
	return src
}

// offline is inject with the presets and no image lookups (--resolve none).
func offline() Options {
	return testOptionsWith(func(o *Options) { o.Presets = presets.Builtin(); o.Resolver = nil })
}

// A Job with fluent-bit and no annotation, offline: fluent-bit is its
// sidecar, and runs its image's ENTRYPOINT and CMD as the preset states
// them, the program path twice as the Dockerfile writes it.
func TestPresetEntrypointOffline(t *testing.T) {
	r, out := injectYAML(t, shipperJob("fluent/fluent-bit:5.1.1", ""), offline())
	want := "pod/export: injected (mains: export; sidecars: logs (preset fluent-bit; its image's ENTRYPOINT and CMD from the preset, not looked up))"
	if r.Status != Injected || r.String() != want {
		t.Fatalf("report %q; want %q", r, want)
	}
	args := listOf(t, out, "logs", "args")
	if !slices.Equal(args, []string{"/fluent-bit/bin/fluent-bit", "/fluent-bit/bin/fluent-bit", "-c", "/fluent-bit/etc/fluent-bit.conf"}) {
		t.Errorf("args %q; want fluent-bit's ENTRYPOINT and CMD", args)
	}
	if cmd := listOf(t, out, "logs", "command"); !slices.Contains(cmd, "sidecar") || slices.Contains(cmd, "--needs") {
		t.Errorf("command %q; want tandem sidecar", cmd)
	}
	if needs := flagValues(listOf(t, out, "export", "command"), "--needs"); len(needs) != 0 {
		t.Errorf("main --needs %q; a log shipper is not essential", needs)
	}
}

// The pod's own args replace CMD, not ENTRYPOINT.
func TestPresetEntrypointWithArgs(t *testing.T) {
	r, out := injectYAML(t, shipperJob("fluent/fluent-bit:5.1.1", `"-i", "dummy", "-o", "stdout"`), offline())
	args := listOf(t, out, "logs", "args")
	if r.Status != Injected || !slices.Equal(args, []string{"/fluent-bit/bin/fluent-bit", "-i", "dummy", "-o", "stdout"}) ||
		!strings.Contains(r.String(), "its image's ENTRYPOINT from the preset") {
		t.Errorf("report %q, args %q; want the ENTRYPOINT and the pod's args", r, args)
	}
}

// istio-proxy added by hand with no command, offline: pilot-agent with
// its args, no registry needed.
func TestPresetEntrypointIstio(t *testing.T) {
	r, out := injectYAML(t, shipperJob("docker.io/istio/proxyv2:1.27.1", `"proxy", "sidecar"`), offline())
	if r.Status != Injected {
		t.Fatalf("report %q; want injected", r)
	}
	if args := listOf(t, out, "logs", "args"); !slices.Equal(args, []string{"/usr/local/bin/pilot-agent", "proxy", "sidecar"}) {
		t.Errorf("args %q; want pilot-agent proxy sidecar", args)
	}
}

// A tag whose Dockerfile differs from the one the preset read (fluent-bit's
// -debug stage has no ENTRYPOINT; Vector's tag with no variant; an older
// release) gets nothing from the preset: offline it is refused as
// before, and with lookups on its image is read.
func TestPresetEntrypointNotForOtherTags(t *testing.T) {
	for _, image := range []string{"fluent/fluent-bit:5.1.1-debug", "timberio/vector:0.57.0", "fluent/fluent-bit:4.0.0", "fluent/fluent-bit:latest"} {
		r, _ := injectYAML(t, shipperJob(image, ""), offline())
		if r.Status != Failed || !strings.Contains(r.String(), "no command, and image lookups are off (--resolve none)") {
			t.Errorf("%s offline: report %q; want refused for want of a lookup", image, r)
		}
		resolver := &fakeResolver{images: map[string]ImageConfig{image: {Cmd: []string{"/fluent-bit/bin/fluent-bit", "-c", "x.conf"}}}}
		r, out := injectYAML(t, shipperJob(image, ""), testOptionsWith(func(o *Options) { o.Presets = presets.Builtin(); o.Resolver = resolver }))
		if r.Status != Injected || !slices.Equal(resolver.lookups, []string{image}) || listOf(t, out, "logs", "args")[0] != "/fluent-bit/bin/fluent-bit" ||
			strings.Contains(r.String(), "from the preset") {
			t.Errorf("%s: report %q, lookups %q; want its image looked up and run", image, r, resolver.lookups)
		}
	}
}

// Vector's variants differ in the program's path; each gets its own.
func TestPresetEntrypointByVariant(t *testing.T) {
	for image, program := range map[string]string{
		"timberio/vector:0.57.0-debian":             "/usr/bin/vector",
		"ghcr.io/vectordotdev/vector:0.57.0-alpine": "/usr/local/bin/vector",
		"timberio/vector:0.57.0-distroless-static":  "/usr/local/bin/vector",
		"timberio/vector:0.57.0-distroless-libc":    "/usr/bin/vector",
	} {
		r, out := injectYAML(t, shipperJob(image, ""), offline())
		if args := listOf(t, out, "logs", "args"); r.Status != Injected || !slices.Equal(args, []string{program}) {
			t.Errorf("%s: report %q, args %q; want %s", image, r, args, program)
		}
	}
}

// With lookups on, a preset image that states its ENTRYPOINT is not
// looked up: Images lists none, and the registry is not asked.
func TestPresetEntrypointNoLookup(t *testing.T) {
	resolver := &fakeResolver{images: map[string]ImageConfig{}}
	opts := testOptionsWith(func(o *Options) { o.Presets = presets.Builtin(); o.Resolver = resolver })
	r, out := injectYAML(t, shipperJob("grafana/alloy:v1.18.1", ""), opts)
	if r.Status != Injected || len(resolver.lookups) != 0 {
		t.Fatalf("report %q, lookups %q; want injected without a lookup", r, resolver.lookups)
	}
	if args := listOf(t, out, "logs", "args"); !slices.Equal(args, []string{"/bin/alloy", "run", "/etc/alloy/config.alloy", "--storage.path=/var/lib/alloy/data"}) {
		t.Errorf("args %q; want Alloy's ENTRYPOINT and CMD", args)
	}
	// Its readiness is on by default: the start hook waits for it.
	hook := listOf(t, out, "logs", "lifecycle", "postStart", "exec", "command")
	if got := flagValues(hook, "--for"); !slices.Equal(got, []string{"http://127.0.0.1:12345/-/ready"}) {
		t.Errorf("start hook %q; want it to wait for Alloy's /-/ready", hook)
	}
}

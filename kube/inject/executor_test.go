package inject

import (
	"slices"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// Under Argo's emissary executor, a sidecar's tandem goes between the
// executor and the program, and drops the executor's SIGTERM at the main's
// end; the mains keep tandem in front (their executor records the step's
// outputs before tandem writes the done file), and a sidecar not under the
// executor is wrapped as ever. In both modes.
func TestSidecarUnderArgoExecutor(t *testing.T) {
	for _, mode := range []Mode{Classic, Native} {
		t.Run(string(mode), func(t *testing.T) {
			_, out := injectYAML(t, argoStepPod, testOptionsWith(func(o *Options) { o.Mode = mode }))
			proxy := podContainer(t, out, "istio-proxy")
			command, _ := yamlnode.StringsOf(yamlnode.Lookup(proxy, "command"))
			args, _ := yamlnode.StringsOf(yamlnode.Lookup(proxy, "args"))
			executor := []string{"/var/run/argo/argoexec", "emissary", "--loglevel", "info", "--", "/run/tandem/tandem", "sidecar"}
			if len(command) < len(executor) || !slices.Equal(command[:len(executor)], executor) {
				t.Errorf("istio-proxy's command %q: want Argo's executor running tandem sidecar", command)
			}
			if got := flagValues(command, "--rewrite"); !slices.Equal(got, []string{"TERM:0"}) {
				t.Errorf("istio-proxy's --rewrite %q; want TERM:0 (the executor's signal at the main's end)", got)
			}
			if want := []string{"/usr/local/bin/pilot-agent", "proxy", "sidecar"}; !slices.Equal(args, want) {
				t.Errorf("istio-proxy's args %q; want the program alone %q", args, want)
			}
			main := podContainer(t, out, "main")
			command, _ = yamlnode.StringsOf(yamlnode.Lookup(main, "command"))
			args, _ = yamlnode.StringsOf(yamlnode.Lookup(main, "args"))
			if command[0] != "/run/tandem/tandem" || args[0] != "/var/run/argo/argoexec" {
				t.Errorf("main: command %q, args %q; want tandem main running Argo's executor", command, args)
			}
			killCommand := yamlnode.ScalarAt(yamlnode.Path(mustParse(t, out), "metadata", "annotations"), "workflows.argoproj.io/kill-cmd-istio-proxy")
			if killCommand != `["/run/tandem/tandem","version"]` {
				t.Errorf("Argo's kill command for istio-proxy %q; want tandem's that signals nothing", killCommand)
			}
			logs := podContainer(t, out, "logs")
			command, _ = yamlnode.StringsOf(yamlnode.Lookup(logs, "command"))
			if command[0] != "/run/tandem/tandem" || len(flagValues(command, "--rewrite")) > 0 {
				t.Errorf("logs (no executor): command %q; want tandem first, no rewrite", command)
			}
		})
	}
}

// A command that only looks like the executor's start is the program.
func TestExecutorOf(t *testing.T) {
	for _, command := range [][]string{
		{"/var/run/argo/argoexec", "emissary", "--"},
		{"/var/run/argo/argoexec", "emissary", "--loglevel", "info", "--"},
		{"/var/run/argo/argoexec", "emissary", "/app"},
		{"/var/run/argo/argoexec", "wait"},
		{"argoexec", "emissary", "--", "/app"},
		{"/app", "/var/run/argo/argoexec", "emissary", "--", "/app"},
	} {
		if got := executorOf(command); got != nil {
			t.Errorf("executorOf(%q) = %q; want none", command, got)
		}
	}
	for command, want := range map[string]int{
		"/var/run/argo/argoexec emissary -- /app -v":                                                    3,
		"/var/run/argo/argoexec emissary --loglevel info --log-format text --gloglevel 0 -- /app -- -v": 9,
	} {
		if got := executorOf(strings.Fields(command)); len(got) != want {
			t.Errorf("executorOf(%q) = %q; want its first %d words", command, got, want)
		}
	}
}

// podContainer is the container or init container name of the injected
// pod out.
func podContainer(t *testing.T, out, name string) *yaml.Node {
	t.Helper()
	for _, list := range []string{"containers", "initContainers"} {
		for _, c := range contentOf(yamlnode.Path(mustParse(t, out), "spec", list)) {
			if yamlnode.ScalarAt(c, "name") == name {
				return c
			}
		}
	}
	t.Fatalf("no container %q in:\n%s", name, out)
	return nil
}

// The webhook's reinvocation sees a sidecar under Argo's executor as
// wrapped: tandem is inside it. Its preset's quit URL is not handed to the
// mains as a late sidecar's (the first main's end would then quit the proxy
// Argo's wait still uploads through), and the pod is skipped as injected.
func TestReinvocationSeesTandemUnderExecutor(t *testing.T) {
	pod := `apiVersion: v1
kind: Pod
metadata: {name: step}
spec:
  restartPolicy: Never
  containers:
    - name: wait
      image: app:1
      command: [argoexec, wait]
    - name: main
      image: app:1
      command: [/var/run/argo/argoexec, emissary, --, /app]
    - name: istio-proxy
      image: docker.io/istio/proxyv2:1.24.0
      command: [/var/run/argo/argoexec, emissary, --, pilot-agent, proxy, sidecar]
`
	first, out := injectYAML(t, pod, presetOptions())
	if first.Status != Injected || !slices.Equal(first.Sidecars, []string{"istio-proxy"}) {
		t.Fatalf("first injection: %q; want istio-proxy a sidecar", first.String())
	}
	again, _ := injectYAML(t, out, presetOptions())
	if again.Status != Skipped || again.Cause != AlreadyInjected {
		t.Errorf("reinvocation: %q; want skipped, already injected", again.String())
	}
	if err := checkWrapped(yamlnode.Path(mustParse(t, out), "spec")); err == nil {
		t.Errorf("a pod whose sidecar runs tandem under Argo's executor is not seen as wrapped")
	}
}

func mustParse(t *testing.T, out string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

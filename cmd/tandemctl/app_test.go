package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/kube/manifest"
)

// run runs tandemctl in-process as main() would, and returns its output
// and exit code; stderr has main()'s error line too.
func run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := newApp(strings.NewReader(stdin), &out, &errOut).Run(append([]string{"tandemctl"}, args...))
	code = exitCode(err)
	if err != nil && !isReported(err) {
		errOut.WriteString("tandemctl: " + err.Error() + "\n")
	}
	return out.String(), errOut.String(), code
}

// writeFile writes data to dir/name, making its directories, and returns
// its path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// testImage is passed as --image where a test is not about its default
// (a development build warns without it).
const testImage = "localhost/tandem:test"

// termAssumed is the report's warning on sidecar name when --resolve none
// leaves its stop signal unstated.
func termAssumed(name string) string {
	return fmt.Sprintf("; warning: sidecar %q: SIGTERM assumed on pod deletion (--resolve none reads no STOPSIGNAL); "+
		"if its image sets another, annotate tandem.sh/stop-signal.%s: SIGNAL", name, name)
}

const plainJob = `# The nightly export.
apiVersion: batch/v1
kind: Job
metadata:
  name: export
spec:
  template:
    metadata:
      annotations:
        tandem.sh/sidecars: db-proxy
    spec:
      restartPolicy: Never
      containers:
      - name: export
        image: postgres:16
        command: [pg_dump] # to stdout
      - name: db-proxy
        image: proxy:2
        command: [/cloud-sql-proxy, --port=5432]
`

const configMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}   # kept as written
data:
  a: "1"
`

func TestInjectStdinAndIdempotence(t *testing.T) {
	in := configMap + "---\n" + plainJob
	out, stderr, code := run(t, in, "inject", "--resolve", "none", "--image", testImage)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantReport := "configmap/settings: skipped (kind ConfigMap has no pod template)\njob/export: injected (mains: export; sidecars: db-proxy)" + termAssumed("db-proxy") + "\n"
	if stderr != wantReport {
		t.Errorf("report\n%s\nwant\n%s", stderr, wantReport)
	}
	if !strings.HasPrefix(out, configMap+"---\n# The nightly export.\n") || !strings.Contains(out, "  - name: db-proxy\n") ||
		!strings.Contains(out, "args: [pg_dump] # to stdout\n") {
		t.Errorf("the untouched document, the comments or the compact lists were not kept:\n%s", out)
	}
	again, stderr2, code := run(t, out, "inject", "--resolve", "none", "--image", testImage, "-")
	if code != 0 || again != out {
		t.Errorf("a second injection changed the output (exit %d):\n%s", code, again)
	}
	if !strings.Contains(stderr2, "job/export: skipped (already injected: tandem.sh/injected: dev)") {
		t.Errorf("second report: %s", stderr2)
	}
}

func TestInjectFilesAndDirectories(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a/job.yaml", plainJob)
	writeFile(t, dir, "a/b/cm.yml", configMap)
	writeFile(t, dir, "a/notes.txt", "not a manifest")
	js := writeFile(t, dir, "pod.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
  "spec": {"containers": [{"name": "m", "image": "app:1", "command": ["/m"]}, {"name": "s", "image": "app:1", "command": ["/s"]}]}}`)
	out, stderr, code := run(t, "", "inject", "--resolve", "none", "--image", testImage, "--sidecar", "s", filepath.Join(dir, "a"), js)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Lexical order in the directory: a/b/cm.yml before a/job.yaml.
	wantReport := "configmap/settings: skipped (kind ConfigMap has no pod template)\n" +
		"job/export: injected (mains: export; sidecars: db-proxy)" + termAssumed("db-proxy") + "\npod/p: injected (mains: m; sidecars: s)" + termAssumed("s") + "\n"
	if stderr != wantReport {
		t.Errorf("report\n%s\nwant\n%s", stderr, wantReport)
	}
	// YAML files then a JSON one: one stream that parses, each document
	// of its own.
	if f, err := manifest.Parse("stdout", []byte(out)); err != nil || len(f.Docs) != 3 {
		t.Errorf("the output does not parse into its 3 documents: %v\n%s", err, out)
	}
	jsonPart := out[strings.LastIndex(out, "\n{")+1:]
	var pod map[string]any
	if err := json.Unmarshal([]byte(jsonPart), &pod); err != nil {
		t.Fatalf("the JSON input did not come out as JSON: %v\n%s", err, jsonPart)
	}
	if !strings.Contains(jsonPart, `"command": [`) || !strings.Contains(jsonPart, `"/run/tandem/tandem",`) {
		t.Errorf("JSON output not indented as its input, or not injected:\n%s", jsonPart)
	}
}

// A resource that cannot be injected is written unchanged and the others
// injected: exit 1, with the reason on stderr.
func TestInjectPartialFailure(t *testing.T) {
	broken := strings.Replace(plainJob, "name: export\nspec", "name: broken\nspec", 1)
	broken = strings.Replace(broken, "        command: [pg_dump] # to stdout\n", "", 1)
	out, stderr, code := run(t, broken+"---\n"+plainJob, "inject", "--resolve", "none", "--image", testImage)
	if code != 1 {
		t.Errorf("exit %d; want 1", code)
	}
	if !strings.HasPrefix(out, broken+"---\n") {
		t.Errorf("the failed resource was not written unchanged:\n%s", out)
	}
	if !strings.Contains(out, "tandem.sh/injected") {
		t.Errorf("the other resource was not injected:\n%s", out)
	}
	want := `job/broken: not injected: container "export" (image "postgres:16"): no command, and image lookups are off (--resolve none): give the container a command:`
	if !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "job/export: injected") {
		t.Errorf("report:\n%s\nwant a line starting %q", stderr, want)
	}
}

// Usage errors and input that does not parse: exit 2, nothing on stdout.
func TestInjectUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", "kind: Job\nspec:\n  a: [1\n")
	good := writeFile(t, dir, "good.yaml", plainJob)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"inject", good, bad}, bad + ":"},
		{[]string{"inject", filepath.Join(dir, "missing.yaml")}, "missing.yaml: no such file"},
		{[]string{"inject", "--mode", "sidecars", good}, `--mode "sidecars": expected classic, native or auto`},
		{[]string{"inject", "--resolve", "maybe", good}, `--resolve "maybe": expected registry or none`},
		{[]string{"inject", "--platform", "amd64", good}, `platform "amd64": expected os/arch`},
		{[]string{"inject", "--image", "", good}, `--image "": expected an image`},
		{[]string{"inject", "--no-such-flag", good}, "unknown flag --no-such-flag for tandemctl inject"},
		{[]string{"injekt"}, `unknown command "injekt"`},
		{[]string{"inject", "--sidecar", "", good}, `--sidecar "": expected a container name`},
		{[]string{"inject", "--sidecar", "db_proxy", good}, `--sidecar "db_proxy": expected a container name`},
		{[]string{"inject", good, "--mode", "native"}, `"--mode" after the files: flags go before them`},
	}
	for _, tt := range tests {
		out, stderr, code := run(t, "", tt.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, no stdout, %q", tt.args, code, out, stderr, tt.want)
		}
	}
}

// A value refused from a flag's variable, as a webhook's Deployment sets
// its flags, names the variable: that is what to fix.
func TestVariableRefusalsNameTheVariable(t *testing.T) {
	good := writeFile(t, t.TempDir(), "good.yaml", plainJob)
	inject := []string{"inject", "--resolve", "none", good}
	for _, tt := range []struct {
		env, value string
		args       []string
		want       string
	}{
		{"TANDEMCTL_MODE", "sidecars", inject, `tandemctl: TANDEMCTL_MODE "sidecars": expected classic, native or auto`},
		{"TANDEMCTL_INSTALL", "volume", inject, `tandemctl: TANDEMCTL_INSTALL "volume": expected image-volume, init-copy or auto`},
		{"TANDEMCTL_IMAGE", ":v1", inject, `tandemctl: TANDEMCTL_IMAGE ":v1": expected an image reference`},
		{"TANDEMCTL_SIDECAR", "db_proxy", inject, `tandemctl: TANDEMCTL_SIDECAR "db_proxy": expected a container name`},
		{"TANDEMCTL_RESOLVE", "maybe", []string{"inject", good}, `tandemctl: TANDEMCTL_RESOLVE "maybe": expected registry or none`},
		{"TANDEMCTL_ON_ERROR", "maybe", []string{"webhook"}, `tandemctl: TANDEMCTL_ON_ERROR "maybe": expected reject or allow`},
		{"TANDEMCTL_LOG_LEVEL", "loud", []string{"webhook"}, `tandemctl: TANDEMCTL_LOG_LEVEL "loud": expected debug`},
		{"TANDEMCTL_NAMESPACE_SELECTOR", "a in (", []string{"policy"}, `tandemctl: TANDEMCTL_NAMESPACE_SELECTOR "a in (": expected a label selector`},
		{"TANDEMCTL_MODE", "auto", []string{"policy"}, `tandemctl: TANDEMCTL_MODE auto: expected classic or native`},
		{"TANDEMCTL_LOOKUP_TIMEOUT", "-1000ms", inject[:1], `tandemctl: TANDEMCTL_LOOKUP_TIMEOUT "-1000ms": expected a positive duration`},
		{"TANDEMCTL_LOOKUP_TIMEOUT", "0s", []string{"webhook"}, `tandemctl: TANDEMCTL_LOOKUP_TIMEOUT "0s": expected a positive duration`},
		{"TANDEMCTL_PLATFORM", "amd64", []string{"inject", good}, `tandemctl: TANDEMCTL_PLATFORM "amd64": expected os/arch`},
		{"TANDEMCTL_PLATFORM", "amd64", []string{"webhook"}, `tandemctl: TANDEMCTL_PLATFORM "amd64": expected os/arch`},
		{"TANDEMCTL_CACHE_SIZE", "0", []string{"webhook"}, `tandemctl: TANDEMCTL_CACHE_SIZE "0": expected a whole number of 1 or more`},
		{"TANDEMCTL_INSECURE_REGISTRY", "localhost:5000,a b", []string{"inject", good}, `tandemctl: TANDEMCTL_INSECURE_REGISTRY "a b": expected a registry HOST[:PORT]`},
		{"TANDEMCTL_SIDECAR_IMAGE", "*proxy:*,a b", []string{"webhook"}, `tandemctl: TANDEMCTL_SIDECAR_IMAGE "a b": expected a glob`},
		{"TANDEMCTL_SHUTDOWN_DELAY", "-5s", []string{"webhook"}, `tandemctl: TANDEMCTL_SHUTDOWN_DELAY "-5s": expected a duration of 0 or more`},
		{"TANDEMCTL_LISTEN", "8443", []string{"webhook"}, `tandemctl: TANDEMCTL_LISTEN "8443": expected an address HOST:PORT`},
	} {
		t.Setenv(tt.env, tt.value)
		out, stderr, code := run(t, "", tt.args...)
		if code != 2 || out != "" || !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("%s=%q %q: exit %d, stdout %q, stderr %q; want exit 2, no stdout, %q", tt.env, tt.value, tt.args, code, out, stderr, tt.want)
		}
		os.Unsetenv(tt.env)
	}
}

// A "--" after the files ends the flags, as it does before them: it is
// not a file.
func TestInjectDoubleDash(t *testing.T) {
	dir := t.TempDir()
	job := writeFile(t, dir, "job.yaml", plainJob)
	want, _, _ := run(t, "", "inject", "--resolve", "none", "--image", testImage, job)
	for _, args := range [][]string{{job, "--"}, {"--", job}} {
		out, stderr, code := run(t, "", append([]string{"inject", "--resolve", "none", "--image", testImage}, args...)...)
		if code != 0 || out != want {
			t.Errorf("%q: exit %d, stderr %q, stdout\n%s\nwant exit 0 and\n%s", args, code, stderr, out, want)
		}
	}
}

// Every flag has its TANDEMCTL_<FLAG> variable.
func TestInjectEnvironment(t *testing.T) {
	t.Setenv("TANDEMCTL_MODE", "native")
	t.Setenv("TANDEMCTL_RESOLVE", "none")
	t.Setenv("TANDEMCTL_IMAGE", "localhost/tandem:test")
	src := strings.Replace(plainJob, "        tandem.sh/sidecars: db-proxy\n", "        other: x\n", 1)
	t.Setenv("TANDEMCTL_SIDECAR", "db-proxy,none")
	out, stderr, code := run(t, src, "inject")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"image: localhost/tandem:test", "restartPolicy: Always", "- sidecar\n", "- /run/tandem/export.done\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, name := range []string{"sidecar", "mode", "image", "resolve", "platform", "insecure-registry", "lookup-timeout"} {
		if flagEnv(t, name) != "TANDEMCTL_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_")) {
			t.Errorf("--%s has no TANDEMCTL_ variable", name)
		}
	}
}

func flagEnv(t *testing.T, name string) string {
	t.Helper()
	for _, f := range injectCommand().Flags {
		if f.Names()[0] == name {
			if env, ok := f.(interface{ GetEnvVars() []string }); ok && len(env.GetEnvVars()) == 1 {
				return env.GetEnvVars()[0]
			}
		}
	}
	return ""
}

func TestVersion(t *testing.T) {
	out, _, code := run(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "tandemctl dev\ncommit unknown\ngo") {
		t.Errorf("exit %d: %q", code, out)
	}
}

// The items of a kind: List are resources of their own.
func TestInjectList(t *testing.T) {
	indent := func(s string) string {
		return "  - " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
	}
	job := strings.TrimPrefix(plainJob, "# The nightly export.\n")
	in := "apiVersion: v1\nkind: List\nitems:\n" + indent(configMap) + indent(job)
	out, stderr, code := run(t, in, "inject", "--resolve", "none", "--image", testImage)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "configmap/settings: skipped (kind ConfigMap has no pod template)\njob/export: injected (mains: export; sidecars: db-proxy)" + termAssumed("db-proxy") + "\n"; stderr != want {
		t.Errorf("report\n%s\nwant\n%s", stderr, want)
	}
	if !strings.HasPrefix(out, "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n") ||
		!strings.Contains(out, "        tandem.sh/injected: \"dev\"\n") {
		t.Errorf("the list was not injected in place:\n%s", out)
	}
}

// Two JSON objects from stdin on one line come out one a line, the last
// one ending its line too.
func TestInjectJSONValuesEndTheirLines(t *testing.T) {
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"m","image":"app:1","command":["/m"]},{"name":"s","image":"app:1","command":["/s"]}]}}`
	out, stderr, code := run(t, pod+pod, "inject", "--resolve", "none", "--image", testImage, "--sidecar", "s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 3 || lines[2] != "" || !json.Valid([]byte(lines[0])) || !json.Valid([]byte(lines[1])) {
		t.Errorf("want two JSON lines, each ending with a newline; got %q", out)
	}
}

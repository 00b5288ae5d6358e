package charttest

import (
	"strings"
	"testing"
)

// refused renders with args and returns Helm's error, failing the test
// when the render succeeds.
func refused(t *testing.T, args ...string) string {
	t.Helper()
	_, stderr, err := Run(t, append([]string{"template", "tandem", Chart}, args...)...)
	if err == nil {
		t.Errorf("%s: rendered, want a refusal", strings.Join(args, " "))
	}
	return stderr
}

// TestUnknownValuesAreRefused: a misspelt value, at any depth, fails the
// render naming it, where Helm would ignore it.
func TestUnknownValuesAreRefused(t *testing.T) {
	t.Parallel()
	for set, key := range map[string]string{"replica=3": "replica", "image.tags=v1": "tags", "podDisruptionBudget.minAvaliable=1": "minAvaliable",
		"certificates.certManager.issuerRef.nmae=corp": "nmae", "resources.request.cpu=1": "request", "imagePullSecrets[0].nmae=x": "nmae"} { //nolint:misspell // typos on purpose: the schema must refuse them
		if stderr := refused(t, "--set", set); !strings.Contains(stderr, key) {
			t.Errorf("--set %s: the refusal does not name %q:\n%s", set, key, stderr)
		}
	}
}

// TestExtraEnvSetsNoVariableTwice: a variable the chart sets from a value
// is refused in extraEnv, naming the value to set; so is one given twice.
func TestExtraEnvSetsNoVariableTwice(t *testing.T) {
	t.Parallel()
	cases := []struct{ env, want string }{
		{`[{"name":"TANDEMCTL_MODE","value":"classic"}]`, "extraEnv: TANDEMCTL_MODE is set by the chart from mode"},
		{`[{"name":"TANDEMCTL_LOOKUP_TIMEOUT","value":"1s"}]`, "from lookupTimeout"},
		{`[{"name":"TANDEMCTL_IMAGE","value":"a"},{"name":"TANDEMCTL_IMAGE","value":"b"}]`, "extraEnv: TANDEMCTL_IMAGE is given twice"},
	}
	for _, c := range cases {
		if stderr := refused(t, "--set-json", "extraEnv="+c.env); !strings.Contains(stderr, c.want) {
			t.Errorf("extraEnv=%s: refusal does not say %q:\n%s", c.env, c.want, stderr)
		}
	}
	objs := Template(t, Chart, "--set-json", `extraEnv=[{"name":"TANDEMCTL_IMAGE","value":"mirror.example/tandem:v1"}]`)
	if got := Field(objs[DeploymentKey], append(ContainerPath, "env", "name=TANDEMCTL_IMAGE", "value")...); got != "mirror.example/tandem:v1" {
		t.Errorf("extraEnv TANDEMCTL_IMAGE rendered %v", got)
	}
}

// TestOneReplicaBlocksNoDrain: with one replica no PodDisruptionBudget is
// rendered (minAvailable 1 would block every drain of its node); a budget
// that keeps every replica is refused.
func TestOneReplicaBlocksNoDrain(t *testing.T) {
	t.Parallel()
	const pdb = "PodDisruptionBudget/tandem-system/tandem-webhook"
	if objs := Template(t, Chart, "--set", "replicas=1"); objs[pdb] != nil {
		t.Errorf("replicas=1 renders a PodDisruptionBudget: %s", JSON(objs[pdb]))
	}
	if objs := Template(t, Chart, "--set", "replicas=3", "--set", "podDisruptionBudget.minAvailable=2"); Field(objs[pdb], "spec", "minAvailable") != 2.0 {
		t.Errorf("replicas=3 minAvailable=2: budget %s", JSON(objs[pdb]))
	}
	stderr := refused(t, "--set", "replicas=2", "--set", "podDisruptionBudget.minAvailable=2")
	if !strings.Contains(stderr, "podDisruptionBudget.minAvailable 2 with replicas 2") {
		t.Errorf("minAvailable=replicas: refusal does not name the values:\n%s", stderr)
	}
}

// TestEmptyNamespaceSelectorIsTheDefault: the default selects
// tandem.sh/inject=enabled, in the configuration and the webhook alike.
func TestEmptyNamespaceSelectorIsTheDefault(t *testing.T) {
	t.Parallel()
	objs := Template(t, Chart)
	got := JSON(Field(objs[ConfigKey], append(webhookPath, "namespaceSelector")...))
	if got != `{"matchLabels":{"tandem.sh/inject":"enabled"}}` {
		t.Errorf("default namespaceSelector %s", got)
	}
	if env := Field(objs[DeploymentKey], append(ContainerPath, "env", "name=TANDEMCTL_NAMESPACE_SELECTOR")...); env != nil {
		t.Errorf("default renders TANDEMCTL_NAMESPACE_SELECTOR %s, the flag's default being the same", JSON(env))
	}
}

package charttest

import (
	"fmt"
	"slices"
	"testing"
)

// TestPodsMeetTheRestrictedStandard: every pod the chart renders, in each
// of its shapes, meets the restricted Pod Security Standard (the rules of
// https://kubernetes.io/docs/concepts/security/pod-security-standards/
// the chart's namespace enforces), and keeps its root filesystem
// read-only.
func TestPodsMeetTheRestrictedStandard(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"--set", "certificates.source=cert-manager"}, {"--set", "readPullSecrets=true", "--set", "replicas=1"}} {
		pods := 0
		for key, obj := range Template(t, Chart, args...) {
			spec, ok := podSpec(obj)
			if !ok {
				continue
			}
			pods++
			for _, problem := range restrictedProblems(spec) {
				t.Errorf("%v: %s: %s", args, key, problem)
			}
		}
		if pods == 0 {
			t.Errorf("%v: no pod rendered", args)
		}
	}
}

// podSpec is the pod spec of a Pod or of an object with a pod template.
func podSpec(obj Object) (map[string]any, bool) {
	switch obj["kind"] {
	case "Pod":
		spec, ok := Field(obj, "spec").(map[string]any)
		return spec, ok
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job":
		spec, ok := Field(obj, "spec", "template", "spec").(map[string]any)
		return spec, ok
	case "CronJob":
		spec, ok := Field(obj, "spec", "jobTemplate", "spec", "template", "spec").(map[string]any)
		return spec, ok
	}
	return nil, false
}

// restrictedVolumes are the volume types the restricted standard allows.
var restrictedVolumes = []string{"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"}

// restrictedProblems names each rule of the restricted standard (and the
// read-only root filesystem) that spec breaks.
func restrictedProblems(spec map[string]any) []string {
	var problems []string
	for _, host := range []string{"hostNetwork", "hostPID", "hostIPC"} {
		if spec[host] == true {
			problems = append(problems, host+" is true")
		}
	}
	for _, v := range asList(spec["volumes"]) {
		for typ := range v {
			if typ != "name" && !slices.Contains(restrictedVolumes, typ) {
				problems = append(problems, fmt.Sprintf("volume %v is %s", v["name"], typ))
			}
		}
	}
	podSC, _ := spec["securityContext"].(map[string]any)
	containers := append(asList(spec["initContainers"]), asList(spec["containers"])...)
	containers = append(containers, asList(spec["ephemeralContainers"])...)
	for _, c := range containers {
		problems = append(problems, containerProblems(podSC, c)...)
	}
	return problems
}

func containerProblems(podSC, c map[string]any) []string {
	sc, _ := c["securityContext"].(map[string]any)
	var problems []string
	fail := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("container %v: ", c["name"])+fmt.Sprintf(format, args...))
	}
	either := func(key string) any {
		if v, ok := sc[key]; ok {
			return v
		}
		return podSC[key]
	}
	if either("runAsNonRoot") != true {
		fail("runAsNonRoot is not true")
	}
	if either("runAsUser") == 0.0 {
		fail("runAsUser is 0")
	}
	if typ := Field(either("seccompProfile"), "type"); typ != "RuntimeDefault" && typ != "Localhost" {
		fail("seccompProfile.type is %v, want RuntimeDefault or Localhost", typ)
	}
	if sc["allowPrivilegeEscalation"] != false {
		fail("allowPrivilegeEscalation is not false")
	}
	if sc["privileged"] == true {
		fail("privileged")
	}
	if drop, _ := Field(sc, "capabilities", "drop").([]any); !slices.Contains(drop, any("ALL")) {
		fail("capabilities.drop lacks ALL")
	}
	for _, add := range asAnyList(Field(sc, "capabilities", "add")) {
		if add != "NET_BIND_SERVICE" {
			fail("capabilities.add has %v", add)
		}
	}
	for _, p := range asList(c["ports"]) {
		if p["hostPort"] != nil && p["hostPort"] != 0.0 {
			fail("hostPort %v", p["hostPort"])
		}
	}
	if sc["readOnlyRootFilesystem"] != true {
		fail("readOnlyRootFilesystem is not true")
	}
	return problems
}

func asAnyList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asList(v any) []map[string]any {
	var out []map[string]any
	for _, item := range asAnyList(v) {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// TestRestrictedProblemsSeesABreach is the control: a pod spec that
// breaks each rule is named for each.
func TestRestrictedProblemsSeesABreach(t *testing.T) {
	t.Parallel()
	spec := map[string]any{"hostNetwork": true, "volumes": []any{map[string]any{"name": "h", "hostPath": map[string]any{}}},
		"containers": []any{map[string]any{"name": "c", "securityContext": map[string]any{"privileged": true,
			"capabilities": map[string]any{"add": []any{"SYS_ADMIN"}}}}}}
	if got := restrictedProblems(spec); len(got) != 9 {
		t.Errorf("%d problems, want 9 (host network, hostPath, runAsNonRoot, seccomp, escalation, privileged, drop, add, read-only root): %q", len(got), got)
	}
}

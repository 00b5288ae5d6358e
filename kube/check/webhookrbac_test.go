package check

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// examplesWebhookRBAC reads the webhook's ClusterRole and its binding from
// examples/webhook/rbac.yaml, as the fixture's cluster holds them.
func examplesWebhookRBAC(t testing.TB) ([]rbacv1.ClusterRole, []rbacv1.ClusterRoleBinding) {
	t.Helper()
	data, err := os.ReadFile("../../examples/webhook/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var roles []rbacv1.ClusterRole
	var bindings []rbacv1.ClusterRoleBinding
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var raw struct {
			Kind string `json:"kind"`
			rbacv1.ClusterRole
			RoleRef  rbacv1.RoleRef   `json:"roleRef"`
			Subjects []rbacv1.Subject `json:"subjects"`
		}
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		switch raw.Kind {
		case "ClusterRole":
			roles = append(roles, raw.ClusterRole)
		case "ClusterRoleBinding":
			bindings = append(bindings, rbacv1.ClusterRoleBinding{ObjectMeta: raw.ObjectMeta, RoleRef: raw.RoleRef, Subjects: raw.Subjects})
		}
	}
	if len(roles) != 1 || len(bindings) != 1 {
		t.Fatalf("examples/webhook/rbac.yaml: %d ClusterRoles, %d ClusterRoleBindings, want 1 each", len(roles), len(bindings))
	}
	return roles, bindings
}

// TestWebhookRBAC: examples/webhook's rights raise nothing; every Secret's
// read without --read-pull-secrets, a verb the docs do not list, and the
// caBundle right on every configuration are each named; with the flag, the
// Secret rule is what it needs.
func TestWebhookRBAC(t *testing.T) {
	secrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets", "serviceaccounts"}, Verbs: []string{"get"}}
	cases := []struct {
		name   string
		change func(f *fixture)
		want   []string
	}{
		{"as examples/webhook", func(*fixture) {}, nil},
		{"Secrets without the flag", func(f *fixture) { f.cluster.roles[0].Rules = append(f.cluster.roles[0].Rules, secrets) },
			[]string{"get secrets (every Secret of the cluster) while --read-pull-secrets is off", "get serviceaccounts"}},
		{"Secrets with the flag", func(f *fixture) {
			f.cluster.roles[0].Rules = append(f.cluster.roles[0].Rules, secrets)
			c := &f.cluster.deployments[0].Spec.Template.Spec.Containers[0]
			c.Env = append(c.Env, corev1.EnvVar{Name: "TANDEMCTL_READ_PULL_SECRETS", Value: "true"})
		}, nil},
		{"a wildcard and a write", func(f *fixture) {
			f.cluster.roles[0].Rules = append(f.cluster.roles[0].Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"*", "patch"}})
		}, []string{"* pods", "patch pods"}},
		{"every configuration's caBundle", func(f *fixture) {
			for i, r := range f.cluster.roles[0].Rules {
				if len(r.ResourceNames) > 0 {
					f.cluster.roles[0].Rules[i].ResourceNames = nil
				}
			}
		}, []string{"update mutatingwebhookconfigurations.admissionregistration.k8s.io on every MutatingWebhookConfiguration"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			c.change(f)
			var found []Finding
			for _, fd := range f.run(t, Options{}).Findings {
				if fd.Check == checkRBAC {
					found = append(found, fd)
				}
			}
			if len(c.want) == 0 {
				if len(found) > 0 {
					t.Errorf("findings %+v, want none", found)
				}
				return
			}
			if len(found) != 1 || found[0].Severity != Warning || found[0].Name != hookSvc {
				t.Fatalf("findings %+v, want one warning on ServiceAccount %s", found, hookSvc)
			}
			for _, w := range c.want {
				if !strings.Contains(found[0].Message, w) {
					t.Errorf("message %q does not say %q", found[0].Message, w)
				}
			}
			t.Logf("%s: %s", found[0].Message, found[0].Fix)
		})
	}
}

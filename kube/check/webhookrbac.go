package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// grant is one verb on one resource of one API group.
type grant struct{ group, resource, verb string }

// webhookNeeds are the cluster-wide rights docs/webhook.md ("RBAC, rule by
// rule") lists for the webhook; pullSecretNeeds are added with
// --read-pull-secrets.
var (
	webhookNeeds = []grant{
		{"", "namespaces", "get"},
		{"", "nodes", "list"},
		{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "get"},
		{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "update"},
	}
	pullSecretNeeds = []grant{{"", "secrets", "get"}, {"", "serviceaccounts", "get"}}
)

// webhookRBAC finds what the ServiceAccount of the webhook's pods holds
// cluster-wide (through ClusterRoleBindings) beyond what the webhook
// needs: every Secret's read while --read-pull-secrets is off, any verb
// the docs do not list, a wildcard, or the caBundle right on every
// configuration rather than its own.
func (c checker) webhookRBAC(ctx context.Context, dep *appsv1.Deployment) ([]Finding, error) {
	account := dep.Spec.Template.Spec.ServiceAccountName
	if account == "" {
		account = "default"
	}
	bindings, err := c.cluster.ClusterRoleBindings(ctx)
	if err != nil {
		return nil, fmt.Errorf("list clusterrolebindings: %w", err)
	}
	roles, err := c.cluster.ClusterRoles(ctx)
	if err != nil {
		return nil, fmt.Errorf("list clusterroles: %w", err)
	}
	needs := webhookNeeds
	if readsPullSecrets(dep) {
		needs = append(slices.Clone(webhookNeeds), pullSecretNeeds...)
	}
	var findings []Finding
	for _, b := range bindings {
		if b.RoleRef.Kind != "ClusterRole" || !bindsAccount(b.Subjects, dep.Namespace, account) {
			continue
		}
		i := slices.IndexFunc(roles, func(r rbacv1.ClusterRole) bool { return r.Name == b.RoleRef.Name })
		if i < 0 {
			continue
		}
		if extra := beyondNeeds(roles[i].Rules, needs); len(extra) > 0 {
			findings = append(findings, Finding{Check: checkRBAC, Severity: Warning, Namespace: dep.Namespace, Name: account,
				Message: fmt.Sprintf("ServiceAccount %s of webhook Deployment %s holds more than the webhook needs, through ClusterRole %s (binding %s): %s",
					account, dep.Name, roles[i].Name, b.Name, strings.Join(extra, "; ")),
				Fix: fmt.Sprintf("keep only the rules docs/webhook.md lists (RBAC, rule by rule): kubectl edit clusterrole %s", roles[i].Name)})
		}
	}
	return findings, nil
}

// readsPullSecrets: the webhook container runs with --read-pull-secrets,
// by flag or variable.
func readsPullSecrets(dep *appsv1.Deployment) bool {
	for _, c := range dep.Spec.Template.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == "TANDEMCTL_READ_PULL_SECRETS" && e.Value == "true" {
				return true
			}
		}
		for _, a := range append(slices.Clone(c.Command), c.Args...) {
			if a == "--read-pull-secrets" || a == "--read-pull-secrets=true" {
				return true
			}
		}
	}
	return false
}

func bindsAccount(subjects []rbacv1.Subject, namespace, account string) bool {
	return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
		return s.Kind == rbacv1.ServiceAccountKind && s.Namespace == namespace && s.Name == account
	})
}

// beyondNeeds says, rule by rule, what rules grant beyond needs.
func beyondNeeds(rules []rbacv1.PolicyRule, needs []grant) []string {
	var extra []string
	for _, r := range rules {
		if len(r.NonResourceURLs) > 0 {
			extra = append(extra, fmt.Sprintf("%v on %v", r.Verbs, r.NonResourceURLs))
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					extra = append(extra, grantBeyond(grant{g, res, v}, r.ResourceNames, needs)...)
				}
			}
		}
	}
	return extra
}

func grantBeyond(g grant, names []string, needs []grant) []string {
	what := g.verb + " " + g.resource
	if g.group != "" {
		what += "." + g.group
	}
	switch {
	case !slices.Contains(needs, g):
		if g.resource == "secrets" && g.verb == "get" && len(names) == 0 {
			return []string{what + " (every Secret of the cluster) while --read-pull-secrets is off"}
		}
		return []string{what}
	case g.resource == "mutatingwebhookconfigurations" && len(names) == 0:
		return []string{what + " on every MutatingWebhookConfiguration, not its own alone (resourceNames)"}
	}
	return nil
}

package inject

import (
	"strconv"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"github.com/tandem-sh/tandem/kube/podfailure"
	"go.yaml.in/yaml/v3"
)

// podFailureWarnings are the rules of a Job's (or a CronJob's Jobs')
// podFailurePolicy that the sidecars' exit at teardown would trip
// (docs/inject.md): the Job would fail at the main's first retried code.
func (p *plan) podFailureWarnings(resource *yaml.Node) []string {
	var policy *yaml.Node
	switch yamlnode.ScalarAt(resource, "kind") {
	case "Job":
		policy = yamlnode.Path(resource, "spec", "podFailurePolicy")
	case "CronJob":
		policy = yamlnode.Path(resource, "spec", "jobTemplate", "spec", "podFailurePolicy")
	}
	var sidecars, mains []string
	for _, c := range append(append([]*container{}, p.sidecars...), p.natives...) {
		sidecars = append(sidecars, c.name)
	}
	for _, c := range p.mains {
		mains = append(mains, c.name)
	}
	var warnings []string
	for _, trip := range podfailure.Tripped(failureRules(policy)) {
		warnings = append(warnings, trip.Message(sidecars)+"; "+trip.Fix(mains))
	}
	return warnings
}

// failureRules reads the onExitCodes rules of a podFailurePolicy node.
func failureRules(policy *yaml.Node) []podfailure.Rule {
	var rules []podfailure.Rule
	for i, r := range contentOf(yamlnode.Lookup(policy, "rules")) {
		codes := yamlnode.Lookup(r, "onExitCodes")
		if codes == nil || codes.Kind != yaml.MappingNode {
			continue
		}
		rule := podfailure.Rule{Index: i, Action: yamlnode.ScalarAt(r, "action"),
			ContainerName: yamlnode.ScalarAt(codes, "containerName"), Operator: yamlnode.ScalarAt(codes, "operator")}
		for _, v := range contentOf(yamlnode.Lookup(codes, "values")) {
			if n, err := strconv.ParseInt(v.Value, 10, 32); err == nil {
				rule.Values = append(rule.Values, int32(n))
			}
		}
		rules = append(rules, rule)
	}
	return rules
}

package inject

import (
	"slices"
	"strconv"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"github.com/tandem-sh/tandem/kube/podfailure"
	"go.yaml.in/yaml/v3"
)

// podFailureWarnings are the rules of a Job's (or a CronJob's Jobs')
// podFailurePolicy that a sidecar's exit at teardown would trip
// (docs/inject.md): the Job would fail at the main's first retried code.
func (p *plan) podFailureWarnings(resource *yaml.Node) []string {
	var policy *yaml.Node
	switch yamlnode.ScalarAt(resource, "kind") {
	case "Job":
		policy = yamlnode.Path(resource, "spec", "podFailurePolicy")
	case "CronJob":
		policy = yamlnode.Path(resource, "spec", "jobTemplate", "spec", "podFailurePolicy")
	}
	// Each teardown code, with the sidecars that can exit with it: a
	// sidecar told to exit 0 on its stop signal still exits 137 when
	// killed after its grace.
	// A sidecar that tandem stops once the mains are done ends that stop
	// with 0: only one the kubelet stops (a native sidecar with its own
	// preStop hook) can trip a rule.
	byCode := map[int32][]string{}
	for _, c := range append(slices.Clone(p.sidecars), p.natives...) {
		if p.stopsOnDone(c) {
			continue
		}
		for _, code := range podfailure.TeardownCodes {
			if code != 143 || !c.exitsZeroOnStop() {
				byCode[code] = append(byCode[code], c.name)
			}
		}
	}
	var codes []int32
	for _, code := range podfailure.TeardownCodes {
		if len(byCode[code]) > 0 {
			codes = append(codes, code)
		}
	}
	var mains []string
	for _, c := range p.mains {
		mains = append(mains, c.name)
	}
	var warnings []string
	for _, trip := range podfailure.TrippedBy(failureRules(policy), codes) {
		warnings = append(warnings, trip.Message(byCode[trip.Code])+"; "+trip.Fix(mains))
	}
	return warnings
}

// exitsZeroOnStop: c's preset says that, as it runs, it exits 0 on its
// stop signal (cloud-sql-proxy --exit-zero-on-sigterm).
func (c *container) exitsZeroOnStop() bool {
	return c.preset != nil && c.preset.ExitZero != nil && c.terminationSignal == "" && c.preset.ExitZero.On(c.argv, c.env())
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

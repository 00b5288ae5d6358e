package policy

import (
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// Objects are what `tandemctl policy` writes: the mutating policy and its
// binding, and the validating policy that refuses (OnError Reject) or
// admits with a warning (Allow) what the mutating one could not inject,
// and its binding. Both variants write the same objects, so applying one
// over the other replaces it, as kubectl apply does.
type Objects struct {
	Mutating          *admissionv1.MutatingAdmissionPolicy
	MutatingBinding   *admissionv1.MutatingAdmissionPolicyBinding
	Validating        *admissionv1.ValidatingAdmissionPolicy
	ValidatingBinding *admissionv1.ValidatingAdmissionPolicyBinding
}

// List is the objects in the order they are applied.
func (o Objects) List() []any {
	list := []any{o.Mutating, o.MutatingBinding}
	if o.Validating != nil {
		list = append(list, o.Validating, o.ValidatingBinding)
	}
	return list
}

// generator writes the CEL of one set of options, with inject's grace
// rule.
type generator struct {
	opts Options
	rule graceRule
}

func newGenerator(opts Options) *generator { return &generator{opts: opts, rule: injectGrace()} }

// Generate writes the policies for opts.
func Generate(opts Options) (Objects, error) {
	if err := opts.check(); err != nil {
		return Objects{}, err
	}
	return newGenerator(opts).objects(), nil
}

// objects are the policies of g's options.
func (g *generator) objects() Objects {
	opts := g.opts
	var vars []admissionv1.Variable
	for _, list := range [][]variable{g.selection(), {g.problems()}, g.grace(), g.argv()} {
		for _, x := range list {
			vars = append(vars, admissionv1.Variable{Name: x.name, Expression: x.expr})
		}
	}
	fail, never := admissionv1.Fail, admissionv1.NeverReinvocationPolicy
	mutating := &admissionv1.MutatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: opts.Name, Annotations: opts.Annotations},
		Spec: admissionv1.MutatingAdmissionPolicySpec{
			MatchConstraints:   podCreates(),
			MatchConditions:    matchConditions(),
			Variables:          vars,
			FailurePolicy:      &fail,
			ReinvocationPolicy: never,
			Mutations: []admissionv1.Mutation{{PatchType: admissionv1.PatchTypeJSONPatch,
				JSONPatch: &admissionv1.JSONPatch{Expression: g.patch()}}},
		},
	}
	objs := Objects{Mutating: mutating, MutatingBinding: &admissionv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: opts.Name},
		Spec: admissionv1.MutatingAdmissionPolicyBindingSpec{PolicyName: opts.Name,
			MatchResources: &admissionv1.MatchResources{NamespaceSelector: opts.NamespaceSelector}},
	}}
	objs.Validating, objs.ValidatingBinding = refusal(opts)
	return objs
}

// podCreates matches the creation of pods, as the webhook does.
func podCreates() *admissionv1.MatchResources {
	return &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Create},
			Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		},
	}}}
}

// matchConditions leave alone the pods already injected (by the webhook
// or inject), opted out, or already marked.
func matchConditions() []admissionv1.MatchCondition {
	absent := func(key string) string {
		return "!has(object.metadata.annotations) || !(" + str(key) + " in object.metadata.annotations)"
	}
	return []admissionv1.MatchCondition{
		{Name: "not-injected", Expression: absent(inject.InjectedKey)},
		{Name: "not-opted-out", Expression: absent(inject.InjectKey) + " || !(object.metadata.annotations[" +
			str(inject.InjectKey) + "] in " + strList(inject.OptOutValues) + ")"},
		{Name: "not-marked", Expression: absent(PolicyKey)},
	}
}

// refusal is the validating policy that refuses a pod the mutating one
// marked, saying why, and its binding; under OnError Allow it warns the
// client instead, and never refuses.
func refusal(opts Options) (*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	fail, action, outcome := admissionv1.Fail, admissionv1.Deny, "Fix that"
	if opts.OnError == inject.Allow {
		fail, action, outcome = admissionv1.Ignore, admissionv1.Warn, "It is created without tandem: fix that"
	}
	value := "object.metadata.annotations[" + str(PolicyKey) + "]"
	marked := "has(object.metadata.annotations) && " + str(PolicyKey) + " in object.metadata.annotations && " + value +
		".startsWith(" + str(SkippedPrefix) + ")"
	vap := &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: opts.Name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: podCreates(),
			FailurePolicy:    &fail,
			Validations: []admissionv1.Validation{{
				Expression: "!(" + marked + ")",
				MessageExpression: fmt.Sprintf("'tandem\\'s admission policy cannot inject this pod: ' + %s.substring(%d) + "+
					"'. %s, or inject it with tandemctl inject or the tandem webhook'", value, len(SkippedPrefix), outcome),
			}},
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: opts.Name},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: opts.Name,
			ValidationActions: []admissionv1.ValidationAction{action},
			MatchResources:    &admissionv1.MatchResources{NamespaceSelector: opts.NamespaceSelector}},
	}
	return vap, binding
}

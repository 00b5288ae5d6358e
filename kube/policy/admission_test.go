package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// admissionPolicy is a MutatingAdmissionPolicy compiled as the API
// server's mutating admission plugin compiles it (k8s.io/apiserver's
// policy/mutating): its variables, match conditions and JSON patch
// mutation, in the base CEL environment of this release.
type admissionPolicy struct {
	compiler *plugincel.CompositedCompiler
	matcher  matchconditions.Matcher
	patcher  patch.Patcher
}

func compileAdmission(t *testing.T, p *admissionregistrationv1.MutatingAdmissionPolicy) admissionPolicy {
	t.Helper()
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	var vars []plugincel.NamedExpressionAccessor
	for _, v := range p.Spec.Variables {
		vars = append(vars, &mutating.Variable{Name: v.Name, Expression: v.Expression})
	}
	compiler.CompileAndStoreVariables(vars, opts, environment.StoredExpressions)
	var conditions []plugincel.ExpressionAccessor
	for i := range p.Spec.MatchConditions {
		conditions = append(conditions, (*matchconditions.MatchCondition)(&p.Spec.MatchConditions[i]))
	}
	matcher := matchconditions.NewMatcher(compiler.CompileCondition(conditions, opts, environment.StoredExpressions),
		p.Spec.FailurePolicy, "policy", "validate", p.Name)
	if len(p.Spec.Mutations) != 1 || p.Spec.Mutations[0].JSONPatch == nil {
		t.Fatalf("want one JSON patch mutation, have %+v", p.Spec.Mutations)
	}
	patchOpts := opts
	patchOpts.HasPatchTypes = true
	evaluator := compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: p.Spec.Mutations[0].JSONPatch.Expression},
		patchOpts, environment.StoredExpressions)
	return admissionPolicy{compiler: compiler, matcher: matcher, patcher: patch.NewJSONPatcher(evaluator)}
}

// denyAll is the authorizer the expressions may call: the policy asks it
// nothing.
type denyAll struct{}

func (denyAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", nil
}

// admit is the pod as the API server creates it with the policy: left as
// it is where a match condition leaves it, else patched by the mutation
// within the runtime cost budget; an error where the API server refuses
// the pod.
func (p admissionPolicy) admit(pod *corev1.Pod) (*corev1.Pod, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	gvk, gvr := corev1.SchemeGroupVersion.WithKind("Pod"), corev1.SchemeGroupVersion.WithResource("pods")
	attrs := admission.NewAttributesRecord(pod, nil, gvk, "default", pod.Name, gvr, "", admission.Create,
		&metav1.CreateOptions{}, false, nil)
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk,
		VersionedObject: admission.NewLazyObject(pod)}
	// The variables are evaluated once for the pod, by whichever
	// expression reads them first, as the API server's dispatcher has it.
	ctx := p.compiler.CreateContext(context.Background())
	match := p.matcher.Match(ctx, versioned, nil, denyAll{})
	if match.Error != nil {
		return nil, match.Error
	}
	if !match.Matches {
		return pod, nil
	}
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	out, err := p.patcher.Patch(ctx, patch.Request{MatchedResource: gvr, VersionedAttributes: versioned,
		ObjectInterfaces: admission.NewObjectInterfacesFromScheme(scheme), Namespace: namespace,
		OptionalVariables: plugincel.OptionalVariableBindings{Authorizer: denyAll{}},
	}, celconfig.RuntimeCELCostBudget)
	if err != nil {
		return nil, err
	}
	return out.(*corev1.Pod), nil
}

// corpusCase is one pod of the comparison and what the policy does with
// it in each mode: injects, skips or leaves.
type corpusCase struct {
	name, src string
}

func (c corpusCase) outcome(t *testing.T, mode inject.Mode) string {
	t.Helper()
	first, _, _ := strings.Cut(c.src, "\n")
	for _, f := range strings.Fields(strings.TrimPrefix(first, "# policy:")) {
		if m, outcome, ok := strings.Cut(f, "="); ok && m == string(mode) {
			return outcome
		}
	}
	t.Fatalf("%s: first line %q: expected # policy: classic=OUTCOME native=OUTCOME", c.name, first)
	return ""
}

// comparisonCorpus is the pods of testdata/pods (the corpus the cluster's
// TestPolicyMatchesInject plays) and those of the grace split's test.
func comparisonCorpus(t *testing.T) []corpusCase {
	t.Helper()
	var cases []corpusCase
	for i, src := range graceSplitPods() {
		cases = append(cases, corpusCase{fmt.Sprintf("grace-split-%d", i), src})
	}
	corpus := readCorpusPods(t)
	for _, name := range slices.Sorted(maps.Keys(corpus)) {
		cases = append(cases, corpusCase{name, corpus[name]})
	}
	return cases
}

// comparison is one mode and install, as `tandemctl policy` and
// `tandemctl inject --resolve none` take them.
type comparison struct {
	mode    inject.Mode
	install inject.Install
}

func (c comparison) options() Options {
	return Options{Name: "tandem", Mode: c.mode, Install: c.install, Image: "ghcr.io/tandem-sh/tandem:v1.0.0",
		Version: "v1.0.0", Presets: presets.Builtin(), OnError: inject.Reject,
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tandem.sh/inject": "enabled"}}}
}

var comparisons = []comparison{
	{inject.Classic, inject.InitCopy}, {inject.Classic, inject.ImageVolume},
	{inject.Native, inject.InitCopy}, {inject.Native, inject.ImageVolume},
}

// differences are where the pod the API server creates with policy (the
// one g writes) differs from what the corpus expects of it: inject's pod for
// one the policy injects, the pod marked with why for one it skips, the
// pod as it is for one it leaves.
func (c comparison) differences(t *testing.T, g *generator, policy admissionPolicy, pod corpusCase) []string {
	t.Helper()
	in := decodePod(t, pod.name, []byte(pod.src))
	got, err := policy.admit(in.DeepCopy())
	if err != nil {
		return []string{fmt.Sprintf("the API server refuses it: %v", err)}
	}
	want := in
	switch pod.outcome(t, c.mode) {
	case "injects":
		want = injectedPod(t, pod, g.opts)
	case "skips":
		why, marked := got.Annotations[PolicyKey]
		if !marked || !strings.HasPrefix(why, SkippedPrefix) {
			return []string{fmt.Sprintf("not marked %s %s…: annotations %v", PolicyKey, SkippedPrefix, got.Annotations)}
		}
		got = got.DeepCopy()
		delete(got.Annotations, PolicyKey)
		if len(got.Annotations) == 0 && in.Annotations == nil {
			got.Annotations = nil
		}
	}
	return fieldDiffs("", asJSON(t, want), asJSON(t, got))
}

// The policy and inject are one rule: the MutatingAdmissionPolicy that
// `tandemctl policy` writes, evaluated in-process as the API server
// applies it (its match conditions, variables and JSON patch, by
// k8s.io/apiserver), gives each pod of the corpus, in either mode and
// install, the pod that `tandemctl inject` writes, field by field; marks
// the pods it cannot inject, saying why; leaves alone those that name no
// sidecar. The cluster's TestPolicyMatchesInject plays the same corpus on
// a real API server.
func TestAdmissionAsInject(t *testing.T) {
	corpus := comparisonCorpus(t)
	for _, c := range comparisons {
		t.Run(string(c.mode)+"-"+string(c.install), func(t *testing.T) {
			objs, err := Generate(c.options())
			if err != nil {
				t.Fatal(err)
			}
			g := &generator{opts: c.options(), rule: injectGrace()}
			if !reflect.DeepEqual(g.objects(), objs) {
				t.Fatal("the generator differs from Generate")
			}
			policy := compileAdmission(t, objs.Mutating)
			outcomes := map[string]int{}
			for _, pod := range corpus {
				outcomes[pod.outcome(t, c.mode)]++
				for _, d := range c.differences(t, g, policy, pod) {
					t.Errorf("%s: %s", pod.name, d)
				}
			}
			t.Logf("pods the policy injects as inject does, skips, leaves: %v", outcomes)
			if outcomes["injects"] == 0 {
				t.Error("the corpus has no pod the policy injects")
			}
		})
	}
}

// The control: a policy whose grace rule is not inject's, as when
// inject's rule changes and the policy's does not follow, gives pods
// that differ from inject's, each number changed alone; the comparison
// above would fail.
func TestAdmissionControlSeesAChangedGraceRule(t *testing.T) {
	corpus := comparisonCorpus(t)
	for _, change := range []struct {
		name  string
		alter func(*graceRule)
	}{
		{"default share +1s", func(r *graceRule) { r.defaultShare += 1e9 }},
		{"least step x2", func(r *graceRule) { r.minStep *= 2 }},
		{"quit steps +1", func(r *graceRule) { r.quitSteps++ }},
		{"sidecars' part a third", func(r *graceRule) { r.divisor = 3 }},
		{"default period 31s", func(r *graceRule) { r.defaultPeriod += 1e9 }},
		{"negative period 2s", func(r *graceRule) { r.negativePeriod = 2e9 }},
		{"tandem's grace 11s", func(r *graceRule) { r.tandemGrace += 1e9 }},
	} {
		t.Run(change.name, func(t *testing.T) {
			differing, played := 0, 0
			for _, c := range comparisons {
				g := &generator{opts: c.options(), rule: injectGrace()}
				change.alter(&g.rule)
				policy := compileAdmission(t, g.objects().Mutating)
				for _, pod := range corpus {
					if pod.outcome(t, c.mode) != "injects" {
						continue
					}
					played++
					if len(c.differences(t, g, policy, pod)) > 0 {
						differing++
					}
				}
			}
			t.Logf("%d of %d injected pods differ from inject's", differing, played)
			if differing == 0 {
				t.Errorf("the comparison sees no pod of %d change: the corpus does not hold this rule", played)
			}
		})
	}
}

// decodePod reads a pod manifest strictly, as the API server does.
func decodePod(t *testing.T, name string, data []byte) *corev1.Pod {
	t.Helper()
	var pod corev1.Pod
	if err := yaml.UnmarshalStrict(data, &pod); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &pod
}

// injectedPod is the pod `tandemctl inject --resolve none` writes, with
// the policy's mode, install, image, version and presets.
func injectedPod(t *testing.T, pod corpusCase, opts Options) *corev1.Pod {
	t.Helper()
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal([]byte(pod.src), &doc); err != nil {
		t.Fatal(err)
	}
	r := inject.Resource(context.Background(), doc.Content[0], inject.Options{Mode: opts.Mode, Install: opts.Install,
		Image: opts.Image, Version: opts.Version, Sidecars: opts.Sidecars, Presets: opts.Presets})
	if r.Status != inject.Injected {
		t.Fatalf("%s: inject: %s", pod.name, r)
	}
	out, err := yamlv3.Marshal(doc.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	return decodePod(t, pod.name+" injected", out)
}

// asJSON is v as JSON's maps and lists, as fieldDiffs compares them.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// fieldDiffs lists, field by field, where policy differs from inject.
func fieldDiffs(path string, inject, policy any) []string {
	im, iok := inject.(map[string]any)
	pm, pok := policy.(map[string]any)
	if iok && pok {
		keys := map[string]bool{}
		for k := range im {
			keys[k] = true
		}
		for k := range pm {
			keys[k] = true
		}
		var diffs []string
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			diffs = append(diffs, fieldDiffs(path+"."+k, im[k], pm[k])...)
		}
		return diffs
	}
	il, iok := inject.([]any)
	pl, pok := policy.([]any)
	if iok && pok && len(il) == len(pl) {
		var diffs []string
		for i := range il {
			diffs = append(diffs, fieldDiffs(fmt.Sprintf("%s[%d]", path, i), il[i], pl[i])...)
		}
		return diffs
	}
	if reflect.DeepEqual(inject, policy) {
		return nil
	}
	ij, _ := json.Marshal(inject)
	pj, _ := json.Marshal(policy)
	return []string{fmt.Sprintf("%s: expected %s, the policy writes %s", path, ij, pj)}
}

package policy

import (
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// --on-error allow applied over reject (kubectl apply of the one after the
// other) must leave nothing that refuses: both variants write the same
// objects, and allow's validating binding only warns.
func TestOnErrorVariantsReplaceEachOther(t *testing.T) {
	objects := func(onError inject.OnError) Objects {
		objs, err := Generate(Options{Name: "tandem", Mode: inject.Classic, Install: inject.InitCopy, Image: "ghcr.io/tandem-sh/tandem:v1.0.0",
			Version: "v1.0.0", OnError: onError, NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{inject.InjectKey: "enabled"}}})
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	reject, allow := objects(inject.Reject), objects(inject.Allow)
	if len(reject.List()) != len(allow.List()) || allow.Validating == nil || allow.ValidatingBinding == nil ||
		allow.Validating.Name != reject.Validating.Name || allow.ValidatingBinding.Name != reject.ValidatingBinding.Name {
		t.Fatalf("allow writes %d objects (validating policy %v), reject %d: applied over reject, allow leaves reject's refusal in place",
			len(allow.List()), allow.Validating != nil, len(reject.List()))
	}
	if got := allow.ValidatingBinding.Spec.ValidationActions; slices.Contains(got, admissionv1.Deny) || !slices.Contains(got, admissionv1.Warn) {
		t.Errorf("allow's validating binding acts %v; want Warn, never Deny", got)
	}
	if got := reject.ValidatingBinding.Spec.ValidationActions; !slices.Equal(got, []admissionv1.ValidationAction{admissionv1.Deny}) {
		t.Errorf("reject's validating binding acts %v; want Deny", got)
	}
}

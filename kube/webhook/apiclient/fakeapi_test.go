package apiclient

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	admissionfake "k8s.io/client-go/kubernetes/typed/admissionregistration/v1/fake"
	corefake "k8s.io/client-go/kubernetes/typed/core/v1/fake"
	k8stesting "k8s.io/client-go/testing"
)

// fakeAPI is an API server in memory for the two typed clients: one
// object tracker behind both, holding objects. The typed fakes, not
// client-go's fake Clientset, which compiles the fakes of every group.
func fakeAPI(objects ...runtime.Object) (*corefake.FakeCoreV1, *admissionfake.FakeAdmissionregistrationV1) {
	tracker := k8stesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())
	for _, o := range objects {
		if err := tracker.Add(o); err != nil {
			panic(err)
		}
	}
	fake := &k8stesting.Fake{}
	fake.AddReactor("*", "*", k8stesting.ObjectReaction(tracker))
	return &corefake.FakeCoreV1{Fake: fake}, &admissionfake.FakeAdmissionregistrationV1{Fake: fake}
}

package apiclient

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/tandem-sh/tandem/kube/inject"
)

func node(name, kubelet string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: kubelet}}}
}

// The versions read are the API server's GitVersion and every node's
// kubelet, and --mode auto decides on them.
func TestClusterVersions(t *testing.T) {
	core, _ := fakeAPI(node("n1", "v1.32.2"), node("n2", "v1.28.4"))
	server := &fakediscovery.FakeDiscovery{Fake: core.Fake, FakedServerVersion: &version.Info{GitVersion: "v1.32.2"}}
	v, err := ClusterVersions(context.Background(), server, core)
	if err != nil {
		t.Fatal(err)
	}
	if v.APIServer != "v1.32.2" || len(v.Kubelets) != 2 || v.Kubelets["n2"] != "v1.28.4" {
		t.Errorf("%+v", v)
	}
	if c := inject.ChooseMode(v); c.Mode != inject.Classic || c.Reason != inject.ReasonOldKubelet {
		t.Errorf("%+v; want classic, for n2", c)
	}
}

// Each node's container runtime is read beside its kubelet, and
// --install auto decides on both: one node on containerd 1.7 keeps the
// cluster on init-copy.
func TestClusterRuntimes(t *testing.T) {
	n1, n2 := node("n1", "v1.37.2"), node("n2", "v1.37.2")
	n1.Status.NodeInfo.ContainerRuntimeVersion = "containerd://2.4.2"
	n2.Status.NodeInfo.ContainerRuntimeVersion = "containerd://1.7.27"
	core, _ := fakeAPI(n1, n2)
	server := &fakediscovery.FakeDiscovery{Fake: core.Fake, FakedServerVersion: &version.Info{GitVersion: "v1.37.2"}}
	v, err := ClusterVersions(context.Background(), server, core)
	if err != nil {
		t.Fatal(err)
	}
	if v.Runtimes["n1"] != "containerd://2.4.2" || v.Runtimes["n2"] != "containerd://1.7.27" {
		t.Errorf("runtimes read: %v", v.Runtimes)
	}
	if c := inject.ChooseInstall(v); c.Install != inject.InitCopy || c.Reason != inject.ReasonRuntimeWithout || !strings.Contains(c.Why, "node n2") {
		t.Errorf("%+v; want init-copy, for n2's runtime", c)
	}
}

// A node list the API server refuses is an error naming what was read,
// not a guess.
func TestClusterVersionsForbidden(t *testing.T) {
	core, _ := fakeAPI()
	core.Fake.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New(`nodes is forbidden: User "x" cannot list resource "nodes"`)
	})
	server := &fakediscovery.FakeDiscovery{Fake: core.Fake, FakedServerVersion: &version.Info{GitVersion: "v1.32.2"}}
	_, err := ClusterVersions(context.Background(), server, core)
	if err == nil || !strings.Contains(err.Error(), "the nodes' kubelet versions (list nodes): nodes is forbidden") {
		t.Errorf("%v", err)
	}
}

package kube

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

package apiclient

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"github.com/tandem-sh/tandem/kube/inject"
)

// nodePage is how many nodes one list call reads.
const nodePage = 500

// ClusterVersions reads what --mode auto and --install auto decide on:
// the API server's version (/version, which every identity may read) and
// each node's kubelet and container runtime versions (list nodes: the one
// rule it needs). When the nodes cannot be listed, the versions returned
// with the error hold the API server's alone, which --mode native's check
// needs.
func ClusterVersions(ctx context.Context, server discovery.ServerVersionInterface, nodes corev1client.NodesGetter) (inject.ClusterVersions, error) {
	info, err := server.ServerVersion()
	if err != nil {
		return inject.ClusterVersions{}, fmt.Errorf("the API server's version: %w", err)
	}
	v := inject.ClusterVersions{APIServer: info.GitVersion, Kubelets: map[string]string{}, Runtimes: map[string]string{}}
	opts := metav1.ListOptions{Limit: nodePage}
	for {
		list, err := nodes.Nodes().List(ctx, opts)
		if err != nil {
			return inject.ClusterVersions{APIServer: info.GitVersion}, fmt.Errorf("the nodes' kubelet versions (list nodes): %w", err)
		}
		for _, n := range list.Items {
			v.Kubelets[n.Name] = n.Status.NodeInfo.KubeletVersion
			v.Runtimes[n.Name] = n.Status.NodeInfo.ContainerRuntimeVersion
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			return v, nil
		}
	}
}

// ClusterVersionsAt reads ClusterVersions from the API server cfg reaches.
func ClusterVersionsAt(ctx context.Context, cfg *rest.Config) (inject.ClusterVersions, error) {
	server, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return inject.ClusterVersions{}, err
	}
	nodes, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return inject.ClusterVersions{}, err
	}
	return ClusterVersions(ctx, server, nodes)
}

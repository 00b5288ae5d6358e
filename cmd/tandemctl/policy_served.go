package main

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"

	"github.com/tandem-sh/tandem/kube/webhook/apiclient"
)

// policyServed refuses an API server that does not serve
// MutatingAdmissionPolicy in admissionregistration.k8s.io/v1 (GA in
// Kubernetes 1.36), naming its version, before anything is written: kubectl
// apply would otherwise fail on it with "no matches for kind".
func policyServed(kubeconfig string) error {
	cfg, err := apiclient.RESTConfig(kubeconfig)
	if err != nil {
		return usageError{fmt.Errorf("--kubeconfig: %w", err)} // names the file
	}
	client, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("--kubeconfig %q: %w", kubeconfig, err)
	}
	release := "an unknown release"
	if v, err := client.ServerVersion(); err == nil {
		release = v.GitVersion
	}
	resources, err := client.ServerResourcesForGroupVersion("admissionregistration.k8s.io/v1")
	if err != nil {
		return fmt.Errorf("ask the API server (%s) for admissionregistration.k8s.io/v1: %w", release, err)
	}
	served := slices.ContainsFunc(resources.APIResources, func(r metav1.APIResource) bool { return r.Name == "mutatingadmissionpolicies" })
	if !served {
		return fmt.Errorf("the API server (Kubernetes %s) does not serve admissionregistration.k8s.io/v1 MutatingAdmissionPolicy, "+
			"GA from Kubernetes 1.36: inject there with the webhook (tandemctl webhook) or tandemctl inject", release)
	}
	return nil
}

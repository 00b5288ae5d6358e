package main

import "github.com/urfave/cli/v2"

// How tandemctl reaches the API server, declared here once: `webhook` and
// `check` both take it (as injectflags.go does for inject's options), so
// the two cannot drift in name, variables or usage text.

// kubeconfigFlag is --kubeconfig, read from TANDEMCTL_KUBECONFIG or
// KUBECONFIG (a list, as kubectl takes it) when not given.
func kubeconfigFlag() cli.Flag {
	return &cli.StringFlag{Name: "kubeconfig", EnvVars: append(envVars("kubeconfig"), "KUBECONFIG"),
		Usage: "kubeconfig to reach the API server; default: in-cluster, else ~/.kube/config"}
}

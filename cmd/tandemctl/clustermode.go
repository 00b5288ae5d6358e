package main

import (
	"context"
	"fmt"
	"time"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/webhook/kube"
)

// clusterReadTimeout bounds reading the cluster's versions for --mode.
const clusterReadTimeout = 15 * time.Second

// clusterVersions reads the versions --mode decides on (a variable for
// the tests).
var clusterVersions = func(ctx context.Context, kubeconfig string) (inject.ClusterVersions, error) {
	cfg, err := kube.RESTConfig(kubeconfig)
	if err != nil {
		return inject.ClusterVersions{}, err
	}
	cfg.UserAgent = "tandemctl"
	ctx, cancel := context.WithTimeout(ctx, clusterReadTimeout)
	defer cancel()
	return kube.ClusterVersionsAt(ctx, cfg)
}

// settleMode makes --mode auto classic or native from the cluster's
// versions, and, when check holds, refuses --mode native on a cluster
// older than native sidecars, before the API server would. It returns the
// mode's choice, with its reason, for the report and the metrics.
func settleMode(ctx context.Context, opts *inject.Options, kubeconfig string, check bool) (inject.ModeChoice, error) {
	given := inject.ModeChoice{Mode: opts.Mode, Why: "--mode " + string(opts.Mode), Reason: inject.ReasonFlag}
	if opts.Mode == inject.Classic || (opts.Mode == inject.Native && !check) {
		return given, nil
	}
	versions, err := clusterVersions(ctx, kubeconfig)
	if err != nil {
		return given, fmt.Errorf("--mode %s reads the API server's and the nodes' versions: %w", opts.Mode, err)
	}
	if opts.Mode == inject.Native {
		return given, inject.CheckNative(versions)
	}
	choice := inject.ChooseMode(versions)
	opts.Mode = choice.Mode
	return choice, nil
}

// modeRefresh is how often the webhook under --mode auto reads the
// cluster's versions again: a node pool added or upgraded counts within
// minutes, without listing every node at each admission.
const modeRefresh = 5 * time.Minute

// refreshMode reads the cluster's versions every interval until ctx ends,
// and calls changed with each choice that differs from the one before
// (first: the choice at start). A read that fails keeps the mode in use
// and is passed to failed.
func refreshMode(ctx context.Context, interval time.Duration, kubeconfig string, first inject.ModeChoice,
	changed func(inject.ModeChoice), failed func(error)) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	last := first
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		versions, err := clusterVersions(ctx, kubeconfig)
		if err != nil {
			if ctx.Err() == nil {
				failed(err)
			}
			continue
		}
		if choice := inject.ChooseMode(versions); choice.Mode != last.Mode || choice.Reason != last.Reason {
			last = choice
			changed(choice)
		}
	}
}

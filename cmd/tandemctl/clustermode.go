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

// modeRefresh is how often the webhook under --mode auto or --install
// auto reads the cluster's versions again: a node pool added or upgraded
// counts within minutes, without listing every node at each admission.
const modeRefresh = 5 * time.Minute

// refreshCluster reads the cluster's versions every interval until ctx
// ends, and passes each read to seen. A read that fails keeps what is in
// use and is passed to failed.
func refreshCluster(ctx context.Context, interval time.Duration, kubeconfig string,
	seen func(inject.ClusterVersions), failed func(error)) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
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
		seen(versions)
	}
}

// onModeChange is refreshCluster's seen for --mode auto: it calls changed
// with each choice that differs from the one before (first: the choice at
// start).
func onModeChange(first inject.ModeChoice, changed func(inject.ModeChoice)) func(inject.ClusterVersions) {
	last := first
	return func(v inject.ClusterVersions) {
		if c := inject.ChooseMode(v); c.Mode != last.Mode || c.Reason != last.Reason {
			last = c
			changed(c)
		}
	}
}

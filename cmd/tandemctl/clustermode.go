package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/webhook/apiclient"
)

// clusterReadTimeout bounds reading the cluster's versions for --mode.
const clusterReadTimeout = 15 * time.Second

// clusterVersions reads the versions --mode decides on (a variable for
// the tests).
var clusterVersions = func(ctx context.Context, kubeconfig string) (inject.ClusterVersions, error) {
	cfg, err := apiclient.RESTConfig(kubeconfig)
	if err != nil {
		return inject.ClusterVersions{}, badKubeconfig{err}
	}
	cfg.UserAgent = "tandemctl"
	ctx, cancel := context.WithTimeout(ctx, clusterReadTimeout)
	defer cancel()
	return apiclient.ClusterVersionsAt(ctx, cfg)
}

// badKubeconfig is a kubeconfig that reaches no API server: a usage
// error whatever the mode, unlike a cluster that does not answer.
type badKubeconfig struct{ err error }

func (e badKubeconfig) Error() string { return e.err.Error() }
func (e badKubeconfig) Unwrap() error { return e.err }

// unreadCluster is a cluster whose versions could not be read: --mode
// auto and --install auto cannot choose from it.
type unreadCluster struct{ err error }

func (e unreadCluster) Error() string { return e.err.Error() }
func (e unreadCluster) Unwrap() error { return e.err }

// settleMode makes --mode auto classic or native from the cluster's
// versions, and, online, refuses --mode native on a cluster older than
// native sidecars, before the API server would. Offline, auto is classic
// (offlineMode). Origin names
// where the mode was given (--mode, TANDEMCTL_MODE). It returns the
// mode's choice, with its reason, for the report and the metrics. A
// cluster auto cannot read is an unreadCluster error.
func settleMode(ctx context.Context, opts *inject.Options, kubeconfig string, online bool, origin string) (inject.ModeChoice, error) {
	given := inject.ModeChoice{Mode: opts.Mode, Why: origin + " " + string(opts.Mode), Reason: inject.ReasonFlag}
	switch {
	case opts.Mode == inject.Classic || (opts.Mode == inject.Native && !online):
		return given, nil
	case !online:
		opts.Mode = inject.Classic
		return safeMode(offline), nil
	}
	versions, err := clusterVersions(ctx, kubeconfig)
	var bad badKubeconfig
	switch {
	case errors.As(err, &bad):
		return given, err
	case err != nil && (opts.Mode != inject.Native || versions.APIServer == ""):
		return given, unreadCluster{fmt.Errorf("%s reads the API server's and the nodes' versions: %w", given.Why, err)}
	case opts.Mode == inject.Native:
		return given, inject.CheckNative(versions, given.Why)
	}
	choice := inject.ChooseMode(versions)
	opts.Mode = choice.Mode
	return choice, nil
}

// safeMode is --mode auto's choice where inject cannot read the cluster
// (offline, or a cluster that does not answer): classic, which works on
// every cluster; native on one without native sidecars leaves pods that
// never start.
func safeMode(why string) inject.ModeChoice {
	return inject.ModeChoice{Mode: inject.Classic, Reason: reasonUnread,
		Why: why + ": the kubelets' versions are not read, and classic works on every cluster"}
}

// offline: inject given no cluster to read; the manifests may be for any.
const offline = "offline (no --kubeconfig, TANDEMCTL_KUBECONFIG or KUBECONFIG)"

// reasonUnread: auto chose without reading the cluster.
const reasonUnread = inject.ReasonOfflineInitCopy

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

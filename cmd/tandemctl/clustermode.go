package main

import (
	"context"
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

// modeOption is --mode: auto chooses classic or native from the
// cluster's versions; native is refused online on a cluster older than
// native sidecars, before the API server would; offline, auto is classic.
var modeOption = autoOption[inject.Mode, inject.ModeChoice]{
	auto: inject.Auto, checked: inject.Native, reads: "the API server's and the nodes' versions", apiServerJudges: true,
	offline: safeMode(offline), choose: inject.ChooseMode, check: inject.CheckNative,
	made: func(m inject.Mode, why, reason string) inject.ModeChoice {
		return inject.ModeChoice{Mode: m, Why: why, Reason: reason}
	},
	valueOf:  func(c inject.ModeChoice) inject.Mode { return c.Mode },
	reasonOf: func(c inject.ModeChoice) string { return c.Reason },
}

// settleMode settles opts.Mode (modeOption).
func settleMode(ctx context.Context, opts *inject.Options, kubeconfig string, online bool, origin string) (inject.ModeChoice, error) {
	return modeOption.settle(ctx, &opts.Mode, kubeconfig, online, origin)
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

// onModeChange is refreshCluster's seen for --mode auto.
func onModeChange(first inject.ModeChoice, changed func(inject.ModeChoice)) func(inject.ClusterVersions) {
	return modeOption.onChange(first, changed)
}

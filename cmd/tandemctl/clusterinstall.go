package main

import (
	"context"

	"github.com/tandem-sh/tandem/kube/inject"
)

// offlineInstall is --install auto without a cluster to read: the
// manifests may be for any cluster, and init-copy works on every one.
var offlineInstall = safeInstall(offline)

// safeInstall is --install auto's choice where inject cannot read the
// cluster (offline, or a cluster that does not answer): init-copy, which
// works on every cluster.
func safeInstall(why string) inject.InstallChoice {
	return inject.InstallChoice{Install: inject.InitCopy, Reason: inject.ReasonOfflineInitCopy,
		Why: why + ": the nodes' runtimes are not read, and init-copy works on every cluster"}
}

// installOption is --install: auto chooses init-copy or image-volume
// from the cluster's versions; image-volume is refused online on a
// cluster that cannot mount image volumes, before its pods would fail to
// start; offline, auto is init-copy.
var installOption = autoOption[inject.Install, inject.InstallChoice]{
	auto: inject.InstallAuto, checked: inject.ImageVolume,
	reads:   "the API server's, the kubelets' and the container runtimes' versions",
	offline: offlineInstall, choose: inject.ChooseInstall, check: inject.CheckImageVolume,
	made: func(i inject.Install, why, reason string) inject.InstallChoice {
		return inject.InstallChoice{Install: i, Why: why, Reason: reason}
	},
	valueOf:  func(c inject.InstallChoice) inject.Install { return c.Install },
	reasonOf: func(c inject.InstallChoice) string { return c.Reason },
}

// settleInstall settles opts.Install (installOption).
func settleInstall(ctx context.Context, opts *inject.Options, kubeconfig string, online bool, origin string) (inject.InstallChoice, error) {
	return installOption.settle(ctx, &opts.Install, kubeconfig, online, origin)
}

// onInstallChange is refreshCluster's seen for --install auto.
func onInstallChange(first inject.InstallChoice, changed func(inject.InstallChoice)) func(inject.ClusterVersions) {
	return installOption.onChange(first, changed)
}

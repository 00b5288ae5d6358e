package main

import (
	"context"
	"errors"
	"fmt"

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

// settleInstall makes --install auto init-copy or image-volume from the
// cluster's versions, and, online, refuses --install image-volume on a
// cluster that cannot mount image volumes, before its pods would fail to
// start. Offline, auto is init-copy. It returns the choice, with its
// reason, for the report and the metrics.
func settleInstall(ctx context.Context, opts *inject.Options, kubeconfig string, online bool, origin string) (inject.InstallChoice, error) {
	given := inject.InstallChoice{Install: opts.Install, Why: origin + " " + string(opts.Install), Reason: inject.ReasonFlag}
	switch {
	case opts.Install == inject.InitCopy || (opts.Install == inject.ImageVolume && !online):
		return given, nil
	case !online:
		opts.Install = offlineInstall.Install
		return offlineInstall, nil
	}
	versions, err := clusterVersions(ctx, kubeconfig)
	var bad badKubeconfig
	switch {
	case errors.As(err, &bad):
		return given, err
	case err != nil:
		return given, unreadCluster{fmt.Errorf("%s reads the API server's, the kubelets' and the container runtimes' versions: %w", given.Why, err)}
	case opts.Install == inject.ImageVolume:
		return given, inject.CheckImageVolume(versions, given.Why)
	}
	choice := inject.ChooseInstall(versions)
	opts.Install = choice.Install
	return choice, nil
}

// onInstallChange is refreshCluster's seen for --install auto: it calls
// changed with each choice that differs from the one before (first: the
// choice at start).
func onInstallChange(first inject.InstallChoice, changed func(inject.InstallChoice)) func(inject.ClusterVersions) {
	last := first
	return func(v inject.ClusterVersions) {
		if c := inject.ChooseInstall(v); c.Install != last.Install || c.Reason != last.Reason {
			last = c
			changed(c)
		}
	}
}

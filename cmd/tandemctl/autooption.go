package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/tandem-sh/tandem/kube/inject"
)

// autoOption is what --mode and --install share: auto, which chooses a
// value (a choice C, with its reason) from the cluster's versions, where
// inject has a cluster to read; checked, the value refused online on a
// cluster where auto would not choose it; and the rest, which need no
// cluster.
type autoOption[V ~string, C any] struct {
	auto, checked V
	// reads is what auto reads, as an error says it.
	reads string
	// apiServerJudges: a given checked value is judged by the API server
	// alone when the nodes could not be read.
	apiServerJudges bool
	// offline is auto's choice with no cluster to read.
	offline C
	choose  func(inject.ClusterVersions) C
	check   func(v inject.ClusterVersions, given string) error
	// made is a choice of value; valueOf and reasonOf read one.
	made     func(value V, why, reason string) C
	valueOf  func(C) V
	reasonOf func(C) string
}

// settle makes *value auto a value from the cluster's versions, and,
// online, refuses the checked value on a cluster that does not allow it,
// before the API server or the pods would. Offline, auto is the offline
// choice. Origin names where the value was given (--mode,
// TANDEMCTL_MODE). It returns the choice, with its reason, for the
// report and the metrics; a cluster auto cannot read is an unreadCluster
// error.
func (o autoOption[V, C]) settle(ctx context.Context, value *V, kubeconfig string, online bool, origin string) (C, error) {
	why := origin + " " + string(*value)
	given := o.made(*value, why, inject.ReasonFlag)
	switch {
	case *value != o.auto && (*value != o.checked || !online):
		return given, nil
	case !online:
		*value = o.valueOf(o.offline)
		return o.offline, nil
	}
	versions, err := clusterVersions(ctx, kubeconfig)
	var bad badKubeconfig
	judged := *value == o.checked && o.apiServerJudges && versions.APIServer != ""
	switch {
	case errors.As(err, &bad):
		return given, err
	case err != nil && !judged:
		return given, unreadCluster{fmt.Errorf("%s reads %s: %w", why, o.reads, err)}
	case *value == o.checked:
		return given, o.check(versions, why)
	}
	choice := o.choose(versions)
	*value = o.valueOf(choice)
	return choice, nil
}

// onChange is refreshCluster's seen for auto: it calls changed with each
// choice whose value or reason differs from the one before (first: the
// choice at start).
func (o autoOption[V, C]) onChange(first C, changed func(C)) func(inject.ClusterVersions) {
	last := first
	return func(v inject.ClusterVersions) {
		if c := o.choose(v); o.valueOf(c) != o.valueOf(last) || o.reasonOf(c) != o.reasonOf(last) {
			last = c
			changed(c)
		}
	}
}

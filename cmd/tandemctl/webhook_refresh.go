package main

import (
	"context"

	"github.com/tandem-sh/tandem/kube/inject"
)

// The webhook's --install, settled at start and, under auto, read again
// with --mode auto's refresh: one read of the cluster serves both.

// settleInstall decides how the webhook installs tandem (installOption).
func (s *webhookSetup) settleInstall(ctx context.Context, opts *inject.Options, origin string) (inject.InstallChoice, error) {
	return settleForWebhook(ctx, installOption, &opts.Install, s.kubeconfig, origin, &s.autoInstall, s.logInstall)
}

// settleForWebhook settles one of the webhook's auto options, always
// online (the webhook runs in the cluster it injects for), keeps auto's
// choice in *chosen for the refresh, and logs the choice.
func settleForWebhook[V ~string, C any](ctx context.Context, o autoOption[V, C], value *V, kubeconfig, origin string,
	chosen **C, log func(C)) (C, error) {
	auto := *value == o.auto
	choice, err := o.settle(ctx, value, kubeconfig, true, origin)
	if err != nil {
		return choice, err
	}
	if auto {
		*chosen = &choice
	}
	log(choice)
	return choice, nil
}

func (s *webhookSetup) logInstall(choice inject.InstallChoice) {
	s.logger.Info().Str("event", "install").Str("install", string(choice.Install)).Str("reason", choice.Reason).
		Msgf("installing tandem by %s: %s", choice.Install, choice.Why)
}

// installChanged: --install auto read another choice; admissions from now
// on follow it, and the log and the metric say so.
func (s *webhookSetup) installChanged(choice inject.InstallChoice) {
	s.handler.SetInstall(choice.Install)
	s.logInstall(choice)
	if s.metrics != nil {
		s.metrics.Metrics.Install(string(choice.Install), choice.Reason)
	}
}

// refresh reads the cluster again every modeRefresh under --mode auto or
// --install auto, until ctx ends; it returns at once.
func (s *webhookSetup) refresh(ctx context.Context) {
	var seen []func(inject.ClusterVersions)
	if s.auto != nil {
		seen = append(seen, onModeChange(*s.auto, s.modeChanged))
	}
	if s.autoInstall != nil {
		seen = append(seen, onInstallChange(*s.autoInstall, s.installChanged))
	}
	if len(seen) == 0 {
		return
	}
	go refreshCluster(ctx, modeRefresh, s.kubeconfig, func(v inject.ClusterVersions) {
		for _, f := range seen {
			f(v)
		}
	}, func(err error) {
		s.logger.Warn().Str("event", "mode-unread").Err(err).Msg("--mode auto or --install auto could not read the cluster's versions again: the mode and install in use stay")
	})
}

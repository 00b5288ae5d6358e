package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/webhook"
	"github.com/tandem-sh/tandem/kube/webhook/admission"
	"github.com/tandem-sh/tandem/kube/webhook/apiclient"
	"github.com/tandem-sh/tandem/kube/webhook/metrics"
)

// webhookSetup is the webhook's flags made into its parts.
type webhookSetup struct {
	logger  zerolog.Logger
	clients apiclient.Clients
	handler *admission.Handler
	server  *webhook.Server
	// metrics is nil when --metrics-listen is empty.
	metrics *metrics.Server
	// auto is --mode auto's choice at start, nil for a mode given;
	// autoInstall --install auto's; kubeconfig reaches the cluster they
	// read again (refreshCluster).
	auto        *inject.ModeChoice
	autoInstall *inject.InstallChoice
	kubeconfig  string
}

func newWebhookSetup(cliCtx *cli.Context) (*webhookSetup, error) {
	level, err := zerolog.ParseLevel(cliCtx.String("log-level"))
	if err != nil || cliCtx.String("log-level") == "" {
		return nil, usageError{fmt.Errorf("%s: expected debug, info, warn or error", givenAs(cliCtx, "log-level"))}
	}
	// The webhook logs from several goroutines (serving, metrics, the
	// certificate watch): one line at a time, whatever the writer.
	s := &webhookSetup{logger: zerolog.New(zerolog.SyncWriter(cliCtx.App.ErrWriter)).Level(level).With().Timestamp().Logger()}
	cfg, err := webhookConfig(cliCtx, s.logger)
	if err != nil {
		return nil, usageError{err}
	}
	if s.clients, err = apiclient.NewClients(cliCtx.String("kubeconfig")); err != nil {
		return nil, err
	}
	choice, err := s.settleMode(cliCtx, &cfg.Inject)
	if err != nil {
		return nil, usageError{err}
	}
	install, err := s.settleInstall(cliCtx.Context, &cfg.Inject, originOf(cliCtx, "install"))
	if err != nil {
		return nil, usageError{err}
	}
	cfg.Namespaces = apiclient.APINamespaces{Namespaces: s.clients.Core}
	cfg.Keychains = podKeychains(cliCtx.Bool("read-pull-secrets"), s.clients)
	certs := webhook.NewCertReloader(cliCtx.String("cert-dir"))
	if listen := cliCtx.String("metrics-listen"); listen != "" {
		m := metrics.New(certs)
		m.Mode(string(choice.Mode), choice.Reason)
		m.Install(string(install.Install), install.Reason)
		cfg.Recorder = m
		s.metrics = &metrics.Server{Listen: listen, Metrics: m, Logger: s.logger}
	}
	if s.handler, err = admission.NewHandler(cfg); err != nil {
		return nil, usageError{err}
	}
	s.server = &webhook.Server{Listen: cliCtx.String("listen"), Certs: certs, API: s.clients.API,
		Mutate: s.handler, ShutdownDelay: cliCtx.Duration("shutdown-delay"), Logger: s.logger}
	if secret := cliCtx.String("bootstrap-secret"); secret != "" {
		if cliCtx.String("namespace") == "" {
			return nil, usageError{errors.New("--bootstrap-secret: needs --namespace (the downward API's metadata.namespace)")}
		}
		s.server.Bootstrap = &apiclient.Bootstrap{Secrets: s.clients.Core, Webhooks: s.clients.Admission, Namespace: cliCtx.String("namespace"), Secret: secret,
			Service: cliCtx.String("service"), WebhookConfig: cliCtx.String("webhook-config"),
			CertDir: cliCtx.String("cert-dir"), Logger: s.logger}
	}
	return s, nil
}

// podKeychains is where lookups get a pod's credentials: its pull secrets
// and its service account's only with --read-pull-secrets, the one thing
// the webhook would read Secrets for; else none (nil: anonymous), and the
// webhook needs no right on Secrets.
func podKeychains(readPullSecrets bool, clients apiclient.Clients) admission.KeychainSource {
	if !readPullSecrets {
		return nil
	}
	return apiclient.PodKeychains{Core: clients.Core}
}

// settleMode decides the mode the webhook injects in (modeOption), and
// says it.
func (s *webhookSetup) settleMode(cliCtx *cli.Context, opts *inject.Options) (inject.ModeChoice, error) {
	s.kubeconfig = cliCtx.String("kubeconfig")
	return settleForWebhook(cliCtx.Context, modeOption, &opts.Mode, s.kubeconfig, originOf(cliCtx, "mode"), &s.auto, s.logMode)
}

func (s *webhookSetup) logMode(choice inject.ModeChoice) {
	s.logger.Info().Str("event", "mode").Str("mode", string(choice.Mode)).Str("reason", choice.Reason).
		Msgf("injecting in %s mode: %s", choice.Mode, choice.Why)
}

// modeChanged: --mode auto read another choice; admissions from now on
// follow it, and the log and the metric say so.
func (s *webhookSetup) modeChanged(choice inject.ModeChoice) {
	s.handler.SetMode(choice.Mode)
	s.logMode(choice)
	if s.metrics != nil {
		s.metrics.Metrics.Mode(string(choice.Mode), choice.Reason)
	}
}

// webhookConfig reads the flags that decide admissions.
func webhookConfig(cliCtx *cli.Context, logger zerolog.Logger) (admission.Config, error) {
	opts, lookups, err := readInjectFlags(cliCtx)
	if err != nil {
		return admission.Config{}, err
	}
	onError, err := inject.ParseOnError(cliCtx.String("on-error"))
	if err != nil {
		return admission.Config{}, refusedAs(cliCtx, "on-error", err)
	}
	selector, err := labels.Parse(cliCtx.String("namespace-selector"))
	if err != nil {
		return admission.Config{}, fmt.Errorf("%s: %w", givenAs(cliCtx, "namespace-selector"), err)
	}
	if err := checkServeFlags(cliCtx); err != nil {
		return admission.Config{}, err
	}
	cfg := admission.Config{
		Inject: opts, SidecarImages: cliCtx.StringSlice("sidecar-image"),
		OnError: onError, Selector: selector, Logger: logger,
	}
	if lookups != nil {
		if cfg.Images, err = lookups.digestCache(cliCtx.Int("cache-size"), cliCtx.Duration("lookup-timeout")); err != nil {
			return admission.Config{}, err
		}
	}
	return cfg, cfg.Check()
}

// run serves metrics and the webhook (which bootstraps its certificate if
// asked) until SIGTERM or SIGINT. Metrics that cannot be served stop the webhook:
// a webhook nobody can watch is not left running.
func (s *webhookSetup) run(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	metricsDone := make(chan error, 1)
	if s.metrics != nil {
		go func() {
			err := s.metrics.Run(ctx)
			cancel(err)
			metricsDone <- err
		}()
	} else {
		metricsDone <- nil
	}
	s.refresh(ctx)
	err := s.server.Run(ctx)
	cancel(nil)
	// A metrics failure is the cause of whatever serving said after it.
	if metricsErr := <-metricsDone; metricsErr != nil {
		return metricsErr
	}
	return err
}

// checkServeFlags refuses, at start and naming the flag or its variable,
// what would otherwise start a webhook that matches nothing or fail later
// naming nothing: a pattern of no image, a negative delay, a cache of no
// entries, an address that is no HOST:PORT.
func checkServeFlags(cliCtx *cli.Context) error {
	for _, p := range cliCtx.StringSlice("sidecar-image") {
		if err := admission.CheckImageGlob(p); err != nil {
			return fmt.Errorf("%s %w", originOf(cliCtx, "sidecar-image"), err)
		}
	}
	if cliCtx.Duration("shutdown-delay") < 0 {
		return fmt.Errorf("%s: expected a duration of 0 or more, e.g. 5s", givenAs(cliCtx, "shutdown-delay"))
	}
	if cliCtx.Int("cache-size") < 1 {
		return fmt.Errorf("%s: expected a whole number of 1 or more, e.g. 1024", givenAs(cliCtx, "cache-size"))
	}
	for _, flag := range []string{"listen", "metrics-listen"} {
		addr := cliCtx.String(flag)
		if addr == "" && flag == "metrics-listen" {
			continue // no metrics
		}
		if _, port, err := net.SplitHostPort(addr); err != nil || !validPort(port) {
			return fmt.Errorf("%s: expected an address HOST:PORT or :PORT, e.g. :8443", givenAs(cliCtx, flag))
		}
	}
	return nil
}

// validPort is a port number or a service name the system knows.
func validPort(port string) bool {
	_, err := net.LookupPort("tcp", port)
	return err == nil
}

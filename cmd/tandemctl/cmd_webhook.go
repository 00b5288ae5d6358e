package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/webhook"
)

func webhookCommand() *cli.Command {
	return &cli.Command{
		Name:         "webhook",
		Usage:        "a mutating admission webhook: inject pods as the API server admits them",
		Flags:        append(append(webhookServeFlags(), injectFlags()...), webhookAdmitFlags()...),
		Action:       webhookAction,
		OnUsageError: onUsageError,
	}
}

func webhookServeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "listen", Value: ":8443", EnvVars: envVars("listen"), Usage: "HTTPS address for /mutate, /healthz and /readyz"},
		&cli.StringFlag{Name: "cert-dir", Value: "/run/tandem-webhook/certs", EnvVars: envVars("cert-dir"),
			Usage: "directory of " + webhook.CertFile + " and " + webhook.KeyFile + ", read again when they change"},
		kubeconfigFlag(),
		&cli.StringFlag{Name: "metrics-listen", Value: ":9090", EnvVars: envVars("metrics-listen"),
			Usage: "plain HTTP address for Prometheus' /metrics; empty: no metrics"},
		&cli.StringFlag{Name: "log-level", Value: "info", EnvVars: envVars("log-level"), Usage: "debug, info, warn or error"},
		&cli.StringFlag{Name: "namespace", EnvVars: envVars("namespace"),
			Usage: "the webhook's own namespace (of --bootstrap-secret and --service)"},
		&cli.StringFlag{Name: "bootstrap-secret", EnvVars: envVars("bootstrap-secret"),
			Usage: "make the serving certificate at start into this Secret and the caBundle of --webhook-config (no cert-manager); empty: --cert-dir is filled by someone else"},
		&cli.StringFlag{Name: "service", Value: "tandem-webhook", EnvVars: envVars("service"), Usage: "the webhook's Service, named in its certificate"},
		&cli.StringFlag{Name: "webhook-config", Value: "tandem", EnvVars: envVars("webhook-config"), Usage: "the MutatingWebhookConfiguration whose caBundle --bootstrap-secret sets"},
		&cli.DurationFlag{Name: "shutdown-delay", Value: 5 * time.Second, EnvVars: envVars("shutdown-delay"),
			Usage: "keep answering this long after SIGTERM, while the pod leaves the Service's endpoints"},
	}
}

// webhookAdmitFlags decide admissions, besides inject's own flags.
func webhookAdmitFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "sidecar-image", EnvVars: envVars("sidecar-image"),
			Usage: "a container whose image matches PATTERN (a glob: *cloud-sql-proxy:*) is a sidecar (repeatable)"},
		&cli.StringFlag{Name: "namespace-selector", Value: inject.InjectKey + "=enabled", EnvVars: envVars("namespace-selector"),
			Usage: "label selector a pod's namespace must match (checked again beside the configuration's namespaceSelector)"},
		&cli.StringFlag{Name: "on-error", Value: string(inject.Reject), EnvVars: envVars("on-error"),
			Usage: "a pod that cannot be injected: reject (with the reason and the fix) or allow (unchanged, with a warning)"},
		lookupTimeoutFlag(3*time.Second, "bound of one image lookup; keep it under the configuration's timeoutSeconds"),
		&cli.IntFlag{Name: "cache-size", Value: 1024, EnvVars: envVars("cache-size"), Usage: "image configs kept, by digest"},
		&cli.BoolFlag{Name: "read-pull-secrets", EnvVars: envVars("read-pull-secrets"),
			Usage: "look images up with each pod's imagePullSecrets and its service account's (needs get on Secrets and ServiceAccounts cluster-wide); without it no Secret is read and lookups are anonymous"},
	}
}

func webhookAction(cliCtx *cli.Context) error {
	setup, err := newWebhookSetup(cliCtx)
	if err != nil {
		return err
	}
	if w := devImageWarning(cliCtx); w != "" {
		setup.logger.Warn().Str("event", "development-image").Msg(w)
	}
	return setup.run(cliCtx.Context)
}

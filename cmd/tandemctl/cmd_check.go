package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/kube/check"
	"github.com/tandem-sh/tandem/kube/webhook/apiclient"
)

// checkUserAgent names check's requests, apart from the webhook's.
var checkUserAgent = "tandemctl-check/" + version

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "find the Jobs held by their sidecars and check tandem's webhook; read-only, exit 1 when something is wrong",
		UsageText: "tandemctl check [--kubeconfig F] [-n NS | -A] [--stuck-after D] [-o text|json]",
		Flags: []cli.Flag{
			kubeconfigFlag(),
			&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: "look for held pods in this namespace only (the webhook is checked anyway)"},
			&cli.BoolFlag{Name: "all-namespaces", Aliases: []string{"A"}, Usage: "look for held pods in every namespace (the default)"},
			&cli.DurationFlag{Name: "stuck-after", Value: time.Minute, EnvVars: envVars("stuck-after"),
				Usage: "a pod whose main containers ended longer ago than this, while a sidecar runs on, is held"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: string(check.Text), EnvVars: envVars("output"), Usage: "text or json"},
		},
		OnUsageError: onUsageError,
		Action:       checkAction,
	}
}

func checkAction(cliCtx *cli.Context) error {
	opts, format, err := checkOptions(cliCtx)
	if err != nil {
		return usageError{err}
	}
	clients, err := checkClients(cliCtx.String("kubeconfig"))
	if err != nil {
		return err
	}
	report, err := check.Run(cliCtx.Context, clients, opts)
	if errors.As(err, new(check.NoSuchNamespace)) {
		return usageError{fmt.Errorf("-n: %w", err)} // a typo, not a clean cluster
	}
	if err != nil {
		return err
	}
	if err := check.Render(cliCtx.App.Writer, report, format); err != nil {
		return err
	}
	if n := report.Errors(); n > 0 {
		return reportedError{failed: n}
	}
	return nil
}

// checkClients reach the API server as the webhook does, named as check
// in the API server's audit log.
func checkClients(kubeconfig string) (check.APIClients, error) {
	cfg, err := apiclient.RESTConfig(kubeconfig)
	if err != nil {
		return check.APIClients{}, err
	}
	cfg.UserAgent = checkUserAgent
	return check.NewAPIClients(cfg)
}

func checkOptions(cliCtx *cli.Context) (check.Options, check.Format, error) {
	if cliCtx.NArg() > 0 {
		return check.Options{}, "", fmt.Errorf("check takes no arguments, got %q", cliCtx.Args().Slice())
	}
	if cliCtx.IsSet("namespace") && cliCtx.Bool("all-namespaces") {
		return check.Options{}, "", errors.New("-n and -A: give one namespace or all of them")
	}
	if d := cliCtx.Duration("stuck-after"); d <= 0 {
		return check.Options{}, "", fmt.Errorf("--stuck-after %s: expected a positive duration such as 1m or 30s", d)
	}
	format, err := check.ParseFormat(cliCtx.String("output"))
	if err != nil {
		return check.Options{}, "", fmt.Errorf("-o %w", err)
	}
	return check.Options{Namespace: cliCtx.String("namespace"), StuckAfter: cliCtx.Duration("stuck-after")}, format, nil
}

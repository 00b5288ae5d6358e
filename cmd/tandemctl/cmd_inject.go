package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/cmd/tandemctl/inject"
	"github.com/tandem-sh/tandem/cmd/tandemctl/manifest"
	"github.com/tandem-sh/tandem/cmd/tandemctl/registry"
)

func injectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inject",
		Usage:     "wrap the containers of pod templates in tandem; manifests in, manifests out",
		ArgsUsage: "[FILE|DIR|-]...",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "sidecar", EnvVars: envVars("sidecar"),
				Usage: "container NAME is a sidecar in every pod that has one (repeatable; besides the tandem.sh/sidecars annotation)"},
			&cli.StringFlag{Name: "mode", Value: string(inject.Classic), EnvVars: envVars("mode"),
				Usage: "classic (every cluster) or native (sidecars as init containers with restartPolicy: Always, Kubernetes 1.29+)"},
			&cli.StringFlag{Name: "image", Value: "ghcr.io/tandem-sh/tandem:" + version, EnvVars: envVars("image"),
				Usage: "image of the tandem-install init container (holds /tandem)"},
			&cli.StringFlag{Name: "resolve", Value: "registry", EnvVars: envVars("resolve"),
				Usage: "registry: read ENTRYPOINT, CMD and STOPSIGNAL from the image's registry when the manifest does not say; none: never"},
			&cli.StringFlag{Name: "platform", Value: "linux/amd64", EnvVars: envVars("platform"),
				Usage: "the nodes' platform, os/arch[/variant], whose image config is read"},
			&cli.StringSliceFlag{Name: "insecure-registry", EnvVars: envVars("insecure-registry"),
				Usage: "registry HOST[:PORT] spoken to over plain HTTP (repeatable)"},
		},
		Action:       injectAction,
		OnUsageError: onUsageError,
	}
}

func injectAction(cliCtx *cli.Context) error {
	opts, err := injectOptions(cliCtx)
	if err != nil {
		return usageError{err}
	}
	files, err := manifest.Read(cliCtx.Args().Slice(), cliCtx.App.Reader)
	if err != nil {
		return usageError{err}
	}
	failed := injectFiles(cliCtx.Context, files, opts, func(r inject.Report) {
		fmt.Fprintln(cliCtx.App.ErrWriter, r.String())
	})
	if err := manifest.WriteAll(cliCtx.App.Writer, files); err != nil {
		return fmt.Errorf("write the manifests: %w", err)
	}
	if failed > 0 {
		return reportedError{failed}
	}
	return nil
}

func injectOptions(cliCtx *cli.Context) (inject.Options, error) {
	mode, err := inject.ParseMode(cliCtx.String("mode"))
	if err != nil {
		return inject.Options{}, fmt.Errorf("--mode: %w", err)
	}
	opts := inject.Options{
		Mode:     mode,
		Image:    cliCtx.String("image"),
		Version:  version,
		Sidecars: cliCtx.StringSlice("sidecar"),
	}
	if opts.Image == "" {
		return opts, errors.New("--image: expected an image that holds /tandem, e.g. ghcr.io/tandem-sh/tandem:" + version)
	}
	switch resolve := cliCtx.String("resolve"); resolve {
	case "registry":
		if opts.Resolver, err = registry.New(cliCtx.String("platform"), cliCtx.StringSlice("insecure-registry")); err != nil {
			return opts, fmt.Errorf("--platform: %w", err)
		}
	case "none":
	default:
		return opts, fmt.Errorf("--resolve %q: expected registry or none", resolve)
	}
	return opts, nil
}

// injectFiles injects every resource of every file, reporting each, and
// returns how many could not be injected.
func injectFiles(ctx context.Context, files []*manifest.File, opts inject.Options, report func(inject.Report)) (failed int) {
	for _, f := range files {
		for _, doc := range f.Docs {
			for _, res := range doc.Resources() {
				r := inject.Resource(ctx, res, opts)
				switch r.Status {
				case inject.Injected:
					doc.Changed = true
				case inject.Failed:
					failed++
				}
				report(r)
			}
		}
	}
	return failed
}

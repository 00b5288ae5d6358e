package main

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
	"github.com/tandem-sh/tandem/kube/registry"
)

// inject's options as flags, declared and read here once: `inject` and
// `webhook` both take them (linkerd2's cli/flag), so the two commands
// cannot drift in names, defaults or usage text.

// The values of --resolve.
const (
	resolveRegistry = "registry"
	resolveNone     = "none"
)

// injectFlags are the flags of inject.Options, for both commands.
func injectFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "sidecar", EnvVars: envVars("sidecar"),
			Usage: "container NAME is a sidecar in every pod that has one (repeatable; besides the tandem.sh/sidecars annotation)"},
		&cli.StringFlag{Name: "mode", Value: string(inject.Classic), EnvVars: envVars("mode"),
			Usage: "classic (every cluster), native (sidecars as init containers with restartPolicy: Always, Kubernetes 1.29+) or auto (native where the API server and every kubelet are 1.29+, read through --kubeconfig)"},
		&cli.StringFlag{Name: "install", Value: string(inject.InitCopy), EnvVars: envVars("install"),
			Usage: "init-copy (a tandem-install init container copies tandem into the pod: every cluster), image-volume (--image mounted as a read-only image volume, no init container: Kubernetes 1.35+ on containerd 2.1+ or CRI-O 1.31+) or auto (image-volume where the API server, every kubelet and every node's runtime allow it, read through --kubeconfig; init-copy elsewhere and offline)"},
		&cli.StringFlag{Name: "image", Value: defaultImage(version), EnvVars: envVars("image"),
			Usage: "the tandem image (holds /tandem): the tandem-install init container's, or the image volume's; a development build's default was never published"},
		&cli.StringFlag{Name: "resolve", Value: resolveRegistry, EnvVars: envVars("resolve"),
			Usage: resolveRegistry + ": read ENTRYPOINT, CMD and STOPSIGNAL from the image's registry when the manifest does not say; " + resolveNone + ": never"},
		&cli.StringFlag{Name: "platform", Value: "linux/amd64", EnvVars: envVars("platform"),
			Usage: "the nodes' platform, os/arch[/variant], whose image config is read"},
		&cli.StringSliceFlag{Name: "insecure-registry", EnvVars: envVars("insecure-registry"),
			Usage: "registry HOST[:PORT] spoken to over plain HTTP (repeatable)"},
		&cli.BoolFlag{Name: "presets", Value: true, EnvVars: envVars("presets"),
			Usage: "a container whose image is a known sidecar (tandemctl presets) is a sidecar without annotation; --presets=false: only what the pod names"},
	}
}

// containerName is what Kubernetes takes as a container's name: a DNS
// label (RFC 1123).
var containerName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// lookupTimeoutFlag is --lookup-timeout, whose default and usage each
// command sets (the webhook must answer within its configuration's
// timeoutSeconds).
func lookupTimeoutFlag(value time.Duration, usage string) cli.Flag {
	return &cli.DurationFlag{Name: "lookup-timeout", Value: value, EnvVars: envVars("lookup-timeout"), Usage: usage}
}

// imageLookups is where --resolve registry reads image configs: for the
// nodes' platform, over plain HTTP from the insecure registries, each
// lookup bounded by timeout.
type imageLookups struct {
	platform string
	insecure []string
	timeout  time.Duration
}

// readInjectFlags reads injectFlags: the options, with no Resolver, and the
// lookups --resolve asks for (nil: none). Each command makes its own
// resolver from them: inject one per run, the webhook a cache by digest.
func readInjectFlags(cliCtx *cli.Context) (inject.Options, *imageLookups, error) {
	opts, err := readInjectOptions(cliCtx)
	if err != nil {
		return opts, nil, err
	}
	timeout := cliCtx.Duration("lookup-timeout")
	if timeout <= 0 {
		return opts, nil, fmt.Errorf("%s: expected a positive duration, e.g. 10s or 1m", givenAs(cliCtx, "lookup-timeout"))
	}
	switch resolve := cliCtx.String("resolve"); resolve {
	case resolveRegistry:
		lookups := &imageLookups{platform: cliCtx.String("platform"), insecure: cliCtx.StringSlice("insecure-registry"), timeout: timeout}
		return opts, lookups, lookups.check(cliCtx)
	case resolveNone:
		return opts, nil, nil
	default:
		return opts, nil, fmt.Errorf("%s: expected %s or %s", givenAs(cliCtx, "resolve"), resolveRegistry, resolveNone)
	}
}

// readInjectOptions reads the flags of injectFlags that say how to
// inject (--mode, --install, --image, --sidecar, --presets): those that
// `policy` takes too.
func readInjectOptions(cliCtx *cli.Context) (inject.Options, error) {
	mode, err := inject.ParseMode(cliCtx.String("mode"))
	if err != nil {
		return inject.Options{}, refusedAs(cliCtx, "mode", err)
	}
	install, err := inject.ParseInstall(cliCtx.String("install"))
	if err != nil {
		return inject.Options{}, refusedAs(cliCtx, "install", err)
	}
	opts := inject.Options{
		Mode:     mode,
		Install:  install,
		Image:    cliCtx.String("image"),
		Version:  version,
		Sidecars: cliCtx.StringSlice("sidecar"),
	}
	for _, s := range opts.Sidecars {
		if !containerName.MatchString(s) {
			return opts, fmt.Errorf("%s %q: expected a container name (lower case letters, digits and '-', at most 63), e.g. --sidecar db-proxy", originOf(cliCtx, "sidecar"), s)
		}
	}
	if cliCtx.Bool("presets") {
		opts.Presets = presets.Builtin()
	}
	if opts.Image == "" {
		return opts, errors.New(givenAs(cliCtx, "image") + ": expected an image that holds /tandem, e.g. ghcr.io/tandem-sh/tandem:" + version)
	}
	// Written into every pod as it is: the kubelet would refuse it there.
	if _, err := name.ParseReference(opts.Image); err != nil {
		return opts, fmt.Errorf("%s: expected an image reference (the image that holds /tandem), e.g. ghcr.io/tandem-sh/tandem:%s (%v)", givenAs(cliCtx, "image"), version, err)
	}
	return opts, nil
}

// check refuses, naming where each came from, a platform the registry
// package cannot read for and an insecure registry that is no HOST[:PORT].
func (l *imageLookups) check(cliCtx *cli.Context) error {
	if _, err := registry.New(l.platform, nil, l.timeout); err != nil {
		return refusedAs(cliCtx, "platform", err) // registry's: platform "x": expected …
	}
	for _, host := range l.insecure {
		if _, err := name.NewRegistry(host, name.StrictValidation); err != nil {
			return fmt.Errorf("%s %q: expected a registry HOST[:PORT], e.g. localhost:5000", originOf(cliCtx, "insecure-registry"), host)
		}
	}
	return nil
}

// resolver reads each image once per run, with the user's credentials.
func (l *imageLookups) resolver() (*registry.Resolver, error) {
	return registry.New(l.platform, l.insecure, l.timeout) // check held
}

// digestCache keeps up to size configs by digest, each lookup bounded by
// timeout and made with the caller's credentials.
func (l *imageLookups) digestCache(size int, timeout time.Duration) (*registry.DigestCache, error) {
	return registry.NewDigestCache(l.platform, l.insecure, size, timeout)
}

package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/manifest"
	"github.com/tandem-sh/tandem/kube/registry"
)

func injectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inject",
		Usage:     "wrap the containers of pod templates in tandem; manifests in, manifests out",
		ArgsUsage: "[FILE|DIR|-]...",
		Flags: append(injectFlags(), kubeconfigFlag(), lookupTimeoutFlag(10*time.Second, fmt.Sprintf(
			"bound of one image lookup (ENTRYPOINT, CMD, STOPSIGNAL); different images are read at once, up to %d", registry.MaxLookups))),
		Action:       injectAction,
		OnUsageError: onUsageError,
	}
}

func injectAction(cliCtx *cli.Context) error {
	opts, err := injectOptions(cliCtx)
	if err != nil {
		return usageError{err}
	}
	inputs, err := injectInputs(cliCtx.Args().Slice())
	if err != nil {
		return usageError{err}
	}
	files, err := manifest.Read(inputs, cliCtx.App.Reader)
	if err != nil {
		return usageError{err}
	}
	if err := settleCluster(cliCtx, &opts); err != nil {
		return usageError{err}
	}
	if w := devImageWarning(cliCtx); w != "" {
		fmt.Fprintln(cliCtx.App.ErrWriter, "tandemctl: warning: "+w)
	}
	failed := inject.Files(cliCtx.Context, files, opts, func(r inject.Report) {
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

// settleCluster settles --mode and --install from the cluster, and says
// what auto chose. Only with a kubeconfig given is the cluster read (and
// --mode native, --install image-volume checked): inject is offline
// otherwise, and the manifests may be for another cluster. Any doubt, a
// cluster that does not answer included, is classic and init-copy, which
// work on every cluster.
func settleCluster(cliCtx *cli.Context, opts *inject.Options) error {
	kubeconfig := cliCtx.String("kubeconfig")
	online := kubeconfig != ""
	auto := opts.Mode == inject.Auto
	choice, err := settleMode(cliCtx.Context, opts, kubeconfig, online, originOf(cliCtx, "mode"))
	var unread unreadCluster
	if auto && errors.As(err, &unread) {
		choice, err, opts.Mode = safeMode(fmt.Sprintf("the cluster did not answer (%v)", unread.err)), nil, inject.Classic
	}
	if err != nil {
		return clusterError(cliCtx, err)
	}
	if choice.Reason != inject.ReasonFlag {
		fmt.Fprintf(cliCtx.App.ErrWriter, "tandemctl: --mode auto: %s: %s\n", choice.Mode, choice.Why)
	}
	auto = opts.Install == inject.InstallAuto
	install, err := settleInstall(cliCtx.Context, opts, kubeconfig, online, originOf(cliCtx, "install"))
	if auto && errors.As(err, &unread) {
		install, err, opts.Install = safeInstall(fmt.Sprintf("the cluster did not answer (%v)", unread.err)), nil, inject.InitCopy
	}
	if err != nil {
		return clusterError(cliCtx, err)
	}
	if install.Reason != inject.ReasonFlag {
		fmt.Fprintf(cliCtx.App.ErrWriter, "tandemctl: --install auto: %s: %s\n", install.Install, install.Why)
	}
	return nil
}

// clusterError names where a kubeconfig that reaches nothing was given.
func clusterError(cliCtx *cli.Context, err error) error {
	if errors.As(err, new(badKubeconfig)) {
		return fmt.Errorf("%s: %w", originOf(cliCtx, "kubeconfig"), err)
	}
	return err
}

// injectInputs are the files inject reads. Flags end at the first file,
// so a "--" there ends nothing but is taken as the end of the flags it
// is everywhere else; a flag after the files that names no file is one
// the user meant to set.
func injectInputs(args []string) ([]string, error) {
	if i := slices.Index(args, "--"); i >= 0 {
		args = slices.Delete(slices.Clone(args), i, i+1)
	}
	for _, a := range args {
		if _, err := os.Stat(a); err != nil && strings.HasPrefix(a, "-") && a != manifest.Stdin {
			return nil, fmt.Errorf("%q after the files: flags go before them (tandemctl inject [flags] [FILE|DIR|-]...)", a)
		}
	}
	return args, nil
}

// injectOptions reads inject's flags, with a resolver for this run.
func injectOptions(cliCtx *cli.Context) (inject.Options, error) {
	opts, lookups, err := readInjectFlags(cliCtx)
	if err != nil || lookups == nil {
		return opts, err
	}
	opts.Resolver, err = lookups.resolver()
	return opts, err
}

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/policy"
)

// servedPolicy refuses an API server that does not serve the policy (a
// variable for the tests).
var servedPolicy = policyServed

// settlePolicyAuto makes --mode auto and --install auto one choice for
// every node from the cluster's versions, as inject decides them, and
// writes each choice and its reason into the policy's annotations: a
// policy is one for the whole cluster, so the choice is made once, here.
func settlePolicyAuto(cliCtx *cli.Context, opts *policy.Options, kubeconfig string) error {
	in := inject.Options{Mode: opts.Mode, Install: opts.Install}
	if opts.Mode == inject.Auto {
		choice, err := settleMode(cliCtx.Context, &in, kubeconfig, true, originOf(cliCtx, "mode"))
		if err != nil {
			return err
		}
		opts.Mode = in.Mode
		opts.Annotations = withChoice(opts.Annotations, policy.ModeKey, string(choice.Mode), choice.Why)
	}
	if opts.Install == inject.InstallAuto {
		choice, err := settleInstall(cliCtx.Context, &in, kubeconfig, true, originOf(cliCtx, "install"))
		if err != nil {
			return err
		}
		opts.Install = in.Install
		opts.Annotations = withChoice(opts.Annotations, policy.InstallKey, string(choice.Install), choice.Why)
	}
	return nil
}

// withChoice adds to annotations key "auto: CHOICE" and key+"-reason" why.
func withChoice(annotations map[string]string, key, choice, why string) map[string]string {
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[key] = fmt.Sprintf("auto: %s", choice)
	annotations[key+"-reason"] = why
	return annotations
}

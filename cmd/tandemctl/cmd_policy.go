package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/policy"
)

func policyCommand() *cli.Command {
	return &cli.Command{
		Name:      "policy",
		Usage:     "write a MutatingAdmissionPolicy that injects pods in the API server itself, with no webhook running (Kubernetes 1.36+)",
		UsageText: "tandemctl policy [--mode classic|native] [--install init-copy|image-volume] [--image IMAGE] [--namespace-selector SEL] [--on-error reject|allow] [-o yaml|json] | kubectl apply -f -",
		Flags:     policyFlags(),
		Action:    policyAction,
	}
}

// policyFlags are inject's flags that a policy can honour, and its own.
func policyFlags() []cli.Flag {
	var flags []cli.Flag
	for _, f := range injectFlags() {
		if slices.Contains([]string{"sidecar", "mode", "install", "image", "presets"}, f.Names()[0]) {
			flags = append(flags, withPolicyUsage(f))
		}
	}
	return append(flags,
		&cli.StringFlag{Name: "namespace-selector", Value: inject.InjectKey + "=enabled", EnvVars: envVars("namespace-selector"),
			Usage: "label selector of the namespaces whose pods are injected (the bindings' namespaceSelector)"},
		&cli.StringFlag{Name: "on-error", Value: string(inject.Reject), EnvVars: envVars("on-error"),
			Usage: "a pod the policy cannot inject: reject (a ValidatingAdmissionPolicy refuses it, saying why) or allow (created unchanged with a warning, annotated " + policy.PolicyKey + ", which tandemctl check reports)"},
		&cli.StringFlag{Name: "name", Value: "tandem", EnvVars: envVars("policy-name"), Usage: "name of the policies and their bindings"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "yaml", Usage: "yaml or json"},
		&cli.StringFlag{Name: "kubeconfig", Usage: "when given, refuse unless that API server serves admissionregistration.k8s.io/v1 MutatingAdmissionPolicy"},
	)
}

// policyUsage is what --mode and --install take in a policy, one for every
// node: auto only from a cluster read.
var policyUsage = map[string]string{
	"mode":    "classic (every cluster) or native (sidecars as init containers with restartPolicy: Always, Kubernetes 1.29+); auto needs --kubeconfig (or KUBECONFIG): the cluster read decides",
	"install": "init-copy (a tandem-install init container copies tandem into the pod: every cluster) or image-volume (--image mounted as a read-only image volume: Kubernetes 1.35+ on containerd 2.1+ or CRI-O 1.31+ on every node); auto needs --kubeconfig (or KUBECONFIG): the cluster read decides",
}

func withPolicyUsage(f cli.Flag) cli.Flag {
	if s, ok := f.(*cli.StringFlag); ok && policyUsage[s.Name] != "" {
		s.Usage = policyUsage[s.Name]
	}
	return f
}

func policyAction(cliCtx *cli.Context) error {
	if err := noArguments(cliCtx); err != nil {
		return err
	}
	opts, err := readPolicyFlags(cliCtx)
	if err != nil {
		return usageError{err}
	}
	output := cliCtx.String("output")
	if output != "yaml" && output != "json" {
		return usageError{fmt.Errorf("--output %q: expected yaml or json", output)}
	}
	kubeconfig := cliCtx.String("kubeconfig")
	if kubeconfig != "" {
		if err := settlePolicyAuto(cliCtx, &opts, kubeconfig); err != nil {
			return usageError{err}
		}
	}
	objs, err := policy.Generate(opts)
	if err != nil {
		return usageError{err}
	}
	if kubeconfig != "" {
		if err := servedPolicy(kubeconfig); err != nil {
			return err
		}
	}
	if w := devImageWarning(cliCtx); w != "" {
		fmt.Fprintln(cliCtx.App.ErrWriter, "tandemctl: warning:", w)
	}
	return writeObjects(cliCtx.App.Writer, objs.List(), output)
}

// readPolicyFlags reads the flags into the policy's options.
func readPolicyFlags(cliCtx *cli.Context) (policy.Options, error) {
	in, err := readInjectOptions(cliCtx)
	if err != nil {
		return policy.Options{}, err
	}
	// auto is read from the cluster (settlePolicyAuto): only with a kubeconfig.
	online := cliCtx.String("kubeconfig") != ""
	if in.Mode == inject.Auto && !online {
		return policy.Options{}, fmt.Errorf("%s auto: expected classic or native, or auto with --kubeconfig (a policy is one for every node; tandemctl check says which each node allows)", originOf(cliCtx, "mode"))
	}
	if in.Install == inject.InstallAuto && !online {
		return policy.Options{}, fmt.Errorf("%s auto: expected init-copy or image-volume, or auto with --kubeconfig (a policy is one for every node's runtime)", originOf(cliCtx, "install"))
	}
	selector, err := metav1.ParseToLabelSelector(cliCtx.String("namespace-selector"))
	if err == nil && len(selector.MatchLabels)+len(selector.MatchExpressions) == 0 {
		err = errors.New("an empty selector matches every namespace, kube-system's included")
	}
	if err != nil {
		return policy.Options{}, fmt.Errorf("%s: expected a label selector, e.g. %s=enabled (%v)", givenAs(cliCtx, "namespace-selector"), inject.InjectKey, err)
	}
	onError, err := inject.ParseOnError(cliCtx.String("on-error"))
	if err != nil {
		return policy.Options{}, refusedAs(cliCtx, "on-error", err)
	}
	name := cliCtx.String("name")
	if !containerName.MatchString(name) {
		return policy.Options{}, fmt.Errorf("--name %q: expected a DNS label (lower case letters, digits and '-', at most 63), e.g. tandem", name)
	}
	return policy.Options{Name: name, Mode: in.Mode, Install: in.Install, Image: in.Image, Version: in.Version,
		Sidecars: in.Sidecars, Presets: in.Presets, NamespaceSelector: selector, OnError: onError}, nil
}

// writeObjects writes objs as a YAML stream, or a JSON List.
func writeObjects(w io.Writer, objs []any, output string) error {
	if output == "json" {
		list := map[string]any{"apiVersion": "v1", "kind": "List", "items": objs}
		out, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", out)
		return err
	}
	for i, o := range objs {
		out, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/kube/presets"
)

func presetsCommand() *cli.Command {
	return &cli.Command{
		Name:  "presets",
		Usage: "list the known sidecars that inject and the webhook recognise by image, with where each was verified",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "text or json"},
		},
		Action: presetsAction,
	}
}

func presetsAction(cliCtx *cli.Context) error {
	if err := noArguments(cliCtx); err != nil {
		return err
	}
	table := presets.Builtin()
	switch out := cliCtx.String("output"); out {
	case "json":
		enc := json.NewEncoder(cliCtx.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(table)
	case "text":
		return writePresets(cliCtx.App.Writer, table)
	default:
		return usageError{fmt.Errorf("--output %q: expected text or json", out)}
	}
}

// writePresets prints one row a preset, then each one's source.
func writePresets(w io.Writer, table *presets.Table) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tREPOSITORIES\tROLE\tSIGNAL\tQUIT\tREADY\tSTOP EXIT\tESSENTIAL\tGRACE")
	for _, p := range table.Presets {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%t\t%s\n", p.Name, strings.Join(p.Repositories, ","), p.Role,
			p.StopSignal, endpoint(p.Quit), endpoint(p.Ready), stopExit(p.StopExitCode), p.Essential, orDash(p.Grace))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nRead from the sidecar's own command line and environment:")
	for _, p := range table.Presets {
		if settings := sidecarSettings(p); settings != "" {
			fmt.Fprintf(w, "  %s: %s\n", p.Name, settings)
		}
	}
	fmt.Fprintln(w, "\nENTRYPOINT and CMD of the image, by tag (no registry lookup for a sidecar with no command):")
	for _, p := range table.Presets {
		for _, im := range p.Images {
			fmt.Fprintf(w, "  %s: %s since %s: %q %q\n", p.Name, tagSuffixes(im.Suffixes), im.Since, im.Entrypoint, im.Cmd)
		}
	}
	fmt.Fprintln(w, "\nVerified from:")
	for _, p := range table.Presets {
		fmt.Fprintf(w, "  %s: %s\n", p.Name, p.Verified.Source)
	}
	return nil
}

// sidecarSettings says which of the sidecar's flags and variables a
// preset reads: what turns an endpoint on, its port, a zero exit code.
func sidecarSettings(p presets.Preset) string {
	var parts []string
	for _, e := range []struct {
		what string
		e    *presets.Endpoint
	}{{"quit", p.Quit}, {"ready", p.Ready}} {
		if e.e == nil {
			continue
		}
		var said []string
		if on := either(e.e.WhenArg, e.e.WhenEnv, "=true"); on != "" {
			said = append(said, "on with "+on)
		}
		if port := either(e.e.PortArg, e.e.PortEnv, ""); port != "" {
			said = append(said, "port from "+port)
		}
		if len(said) > 0 {
			parts = append(parts, e.what+" "+strings.Join(said, ", "))
		}
	}
	if p.ExitZero != nil {
		parts = append(parts, "exit 0 on its stop signal with "+either(p.ExitZero.Arg, p.ExitZero.Env, "=true"))
	}
	return strings.Join(parts, "; ")
}

// either is "flag or VARIABLE<suffix>", whichever are set.
func either(flag, env, suffix string) string {
	var names []string
	if flag != "" {
		names = append(names, flag)
	}
	if env != "" {
		names = append(names, env+suffix)
	}
	return strings.Join(names, " or ")
}

// endpoint is an endpoint with the condition under which it is served.
func endpoint(e *presets.Endpoint) string {
	switch {
	case e == nil:
		return "-"
	case e.WhenArg != "":
		return e.Target() + " (with " + e.WhenArg + ")"
	case e.WhenEnv != "":
		return e.Target() + " (with " + e.WhenEnv + "=true)"
	}
	return e.Target()
}

func stopExit(code *int) string {
	if code == nil {
		return "-"
	}
	return strconv.Itoa(*code)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// tagSuffixes names the tags an image's suffixes select.
func tagSuffixes(suffixes []string) string {
	var names []string
	for _, s := range suffixes {
		if s == "" {
			names = append(names, "VERSION")
		} else {
			names = append(names, "VERSION"+s+"…")
		}
	}
	return "tags " + strings.Join(names, ", ")
}

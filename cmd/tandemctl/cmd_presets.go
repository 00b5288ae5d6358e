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
	fmt.Fprintln(tw, "NAME\tREPOSITORIES\tROLE\tSIGNAL\tQUIT\tREADY\tSTOP EXIT\tESSENTIAL")
	for _, p := range table.Presets {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%t\n", p.Name, strings.Join(p.Repositories, ","), p.Role,
			p.StopSignal, endpoint(p.Quit), endpoint(p.Ready), stopExit(p.StopExitCode), p.Essential)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nVerified from:")
	for _, p := range table.Presets {
		fmt.Fprintf(w, "  %s: %s\n", p.Name, p.Verified.Source)
	}
	return nil
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

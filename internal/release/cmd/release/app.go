package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
)

// commandNames are the commands, as an error lists them.
const commandNames = "images, krew, chart, publish, spdx, cyclonedx-license, provenance, predicate or sign"

// newApp is the release tool's commands. Flags are written with one dash
// (-version), as the Makefile writes them; two work too. Every error,
// a flag's included, is returned to main, which prints it and exits 1.
func newApp() *cli.App {
	return &cli.App{
		Name:                      "release",
		Usage:                     "write and publish a release's files (docs/releases.md)",
		HideVersion:               true,
		DisableSliceFlagSeparator: true,
		Commands: []*cli.Command{
			imagesCommand, krewCommand, chartCommand, publishCommand, spdxCommand,
			cyclonedxLicenseCommand, provenanceCommand, predicateCommand, signCommand,
		},
		// Reached with no command, or one the app does not have.
		Action: func(cliCtx *cli.Context) error {
			if cliCtx.NArg() == 0 {
				return errors.New("expected a command: " + commandNames)
			}
			return fmt.Errorf("unknown command %q: expected %s", cliCtx.Args().First(), commandNames)
		},
		OnUsageError:   returnUsageError,
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

// returnUsageError returns a flag's error as it is, printing no usage.
func returnUsageError(_ *cli.Context, err error, _ bool) error { return err }

// The flags several commands share.
var (
	versionFlag = &cli.StringFlag{Name: "version", Usage: "the release's version, vX.Y.Z"}
	epochFlag   = &cli.Int64Flag{Name: "epoch", Usage: "the commit's time in seconds since 1970 (SOURCE_DATE_EPOCH)"}
	goFlag      = &cli.StringFlag{Name: "go", Value: "go", Usage: "the go command, to run a tool of go.mod (cosign, krew's validator)"}
)

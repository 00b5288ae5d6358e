package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"

	"github.com/tandem-sh/tandem/supervisor/install"
)

// installAction is `tandem install DIR`.
func installAction(cliCtx *cli.Context) error {
	// It logs nothing, but a bad --log-level is still a mistake to report.
	if _, err := newLogger(newInput(cliCtx), cmdline.CmdInstall); err != nil {
		return err
	}
	if cliCtx.NArg() != 1 {
		return usagef("install takes one DIR, got %d arguments: expected `tandem install DIR`", cliCtx.NArg())
	}
	target, err := install.Self(cliCtx.Args().First())
	if err != nil {
		return err
	}
	fmt.Fprintf(cliCtx.App.ErrWriter, "tandem: installed %s\n", target)
	return nil
}

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/install"
)

// installCommand builds `tandem install`.
func installCommand() *cli.Command {
	return &cli.Command{
		Name:      cmdline.CmdInstall,
		Usage:     "copy this binary to DIR/tandem (mode 0555, atomic) for the init-copy pattern",
		ArgsUsage: "DIR",
		Flags:     withGlobals(),
		Action: func(cliCtx *cli.Context) error {
			if cliCtx.NArg() != 1 {
				return usagef("install takes one DIR, got %d arguments: expected `tandem install DIR`", cliCtx.NArg())
			}
			target, err := install.Self(cliCtx.Args().First())
			if err != nil {
				return err
			}
			fmt.Fprintf(cliCtx.App.ErrWriter, "tandem: installed %s\n", target)
			return nil
		},
	}
}

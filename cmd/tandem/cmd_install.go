package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/supervisor/install"
)

// installAction is `tandem install DIR`.
func installAction(cliCtx *cli.Context) error {
	if cliCtx.NArg() != 1 {
		return usagef("install takes one DIR, got %d arguments: expected `tandem install DIR`", cliCtx.NArg())
	}
	dir := cliCtx.Args().First()
	if dir == "" { // a template's empty variable: not the working directory
		return usagef("DIR %q: expected the directory to copy tandem into, such as /run/tandem", dir)
	}
	target, err := install.Self(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(cliCtx.App.ErrWriter, "tandem: installed %s\n", target)
	return nil
}

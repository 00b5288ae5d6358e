package main

import (
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// versionCommand builds `tandem version`.
func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  cmdline.CmdVersion,
		Usage: "print version, commit and Go version",
		Action: func(cliCtx *cli.Context) error {
			fmt.Fprintf(cliCtx.App.Writer, "tandem %s\ncommit %s\n%s %s/%s\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}

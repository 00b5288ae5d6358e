package main

import (
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"
)

var versionCommand = &cli.Command{
	Name:  "version",
	Usage: "print version, commit and Go version",
	Action: func(cliCtx *cli.Context) error {
		fmt.Fprintf(cliCtx.App.Writer, "tandemctl %s\ncommit %s\n%s %s/%s\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	},
}

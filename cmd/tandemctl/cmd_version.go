package main

import (
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:   "version",
		Usage:  "print version, commit and Go version",
		Action: versionAction,
	}
}

func versionAction(cliCtx *cli.Context) error {
	if err := noArguments(cliCtx); err != nil {
		return err
	}
	fmt.Fprintf(cliCtx.App.Writer, "tandemctl %s\ncommit %s\n%s %s/%s\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

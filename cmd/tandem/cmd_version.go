package main

import (
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"
)

// versionAction is `tandem version`.
func versionAction(cliCtx *cli.Context) error {
	if err := noArgs(cliCtx, "version takes no arguments"); err != nil {
		return err
	}
	fmt.Fprintf(cliCtx.App.Writer, "tandem %s\ncommit %s\n%s %s/%s\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

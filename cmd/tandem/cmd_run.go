package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/supervisor"
)

// runAction is `tandem run`, and the bare `tandem -- CMD`.
var runAction = handTo(runConfig, &runSupervisor)

func runConfig(cliCtx *cli.Context) (supervisor.Config, error) {
	return supervisionConfig(cliCtx, supervisor.ModeRun)
}

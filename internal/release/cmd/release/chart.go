package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/release/helmchart"
)

var chartCommand = &cli.Command{
	Name:  "chart",
	Usage: "write DIST/tandem-X.Y.Z.tgz, the Helm chart",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "dist", Value: "dist", Usage: "where to write the chart archive"},
		&cli.StringFlag{Name: "chart", Value: "charts/tandem", Usage: "the chart's directory"},
		versionFlag,
		&cli.Int64Flag{Name: "epoch", Value: -1, Usage: "the files' time, in seconds since 1970 (SOURCE_DATE_EPOCH)"},
	},
	Action:       chart,
	OnUsageError: returnUsageError,
}

// chart writes DIST/tandem-X.Y.Z.tgz, the Helm chart in -chart stamped
// with the release's version, its files at the commit's time.
func chart(cliCtx *cli.Context) error {
	version, epoch := cliCtx.String("version"), cliCtx.Int64("epoch")
	if version == "" || epoch < 0 {
		return errors.New("chart: -version and -epoch are required")
	}
	path, err := helmchart.Package(cliCtx.String("chart"), cliCtx.String("dist"), version, time.Unix(epoch, 0))
	if err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}

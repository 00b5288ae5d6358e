package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/tandem-sh/tandem/internal/release/helmchart"
)

// chart writes DIST/tandem-X.Y.Z.tgz, the Helm chart in -chart stamped
// with the release's version, its files at the commit's time.
func chart(args []string) error {
	fs := flag.NewFlagSet("chart", flag.ContinueOnError)
	dist := fs.String("dist", "dist", "where to write the chart archive")
	src := fs.String("chart", "charts/tandem", "the chart's directory")
	version := fs.String("version", "", "the release's version, vX.Y.Z")
	epoch := fs.Int64("epoch", -1, "the files' time, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || *epoch < 0 {
		return errors.New("chart: -version and -epoch are required")
	}
	path, err := helmchart.Package(*src, *dist, *version, time.Unix(*epoch, 0))
	if err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}

package main

import (
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
)

// releaseTag is a release's version as `make release` sets it: a bare
// semver tag, never git describe's commits past a tag (v1.2.3-4-gabc1234)
// or a dirty tree.
var releaseTag = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$`)

func isRelease(v string) bool {
	return releaseTag.MatchString(v) && !strings.HasSuffix(v, "-dirty")
}

// defaultImage is --image's default: a release's published tandem image.
// A development build has none; its default is the image `make image`
// tags from the same tree (localhost/tandem:VERSION), which at least
// exists on the machine that built it, and devImageWarning says so.
func defaultImage(v string) string {
	if isRelease(v) {
		return "ghcr.io/tandem-sh/tandem:" + v
	}
	return "localhost/tandem:" + v
}

// devImageWarning is the warning of a development build run without
// --image, else "": the manifests it writes name an image no cluster can
// pull.
func devImageWarning(cliCtx *cli.Context) string {
	if isRelease(version) || cliCtx.IsSet("image") {
		return ""
	}
	return "--image not set: this development build's default, " + defaultImage(version) +
		", was never published (`make image` tags it locally); pass --image with an image that holds this build's tandem (or set TANDEMCTL_IMAGE)"
}

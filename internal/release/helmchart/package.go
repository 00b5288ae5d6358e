// Package helmchart packages charts/tandem for a release and pushes it to
// an OCI registry, with Helm's own Go packages (helm.sh/helm/v4): the
// archive is the one `helm package` would write, but byte-identical from
// any clone of the commit.
package helmchart

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
)

// Name is the chart's name, the last element of its OCI reference.
const Name = "tandem"

// Version is the chart version of release version (v1.2.3 → 1.2.3): Helm
// wants SemVer without the v, the image tags keep it.
func Version(version string) (string, error) {
	v := strings.TrimPrefix(version, "v")
	if _, err := semver.StrictNewVersion(v); err != nil || v == version {
		return "", fmt.Errorf("version %q: expected vX.Y.Z, e.g. v1.2.3", version)
	}
	return v, nil
}

// Package writes the chart in src into dist as NAME-X.Y.Z.tgz, stamped with
// version (chart version X.Y.Z, appVersion vX.Y.Z: the image tag its
// defaults install), and returns its path. Every file's time is epoch:
// Helm would otherwise write each file's time in the checkout, which
// differs between clones.
func Package(src, dist, version string, epoch time.Time) (string, error) {
	chartVersion, err := Version(version)
	if err != nil {
		return "", err
	}
	c, err := loader.LoadDir(src)
	if err != nil {
		return "", fmt.Errorf("load the chart in %s: %w", src, err)
	}
	if c.Name() != Name {
		return "", fmt.Errorf("%s holds chart %q, expected %q", src, c.Name(), Name)
	}
	c.Metadata.Version = chartVersion
	c.Metadata.AppVersion = version
	fixTimes(c, epoch)
	path, err := chartutil.Save(c, dist)
	if err != nil {
		return "", fmt.Errorf("package the chart: %w", err)
	}
	return filepath.Clean(path), nil
}

func fixTimes(c *chart.Chart, epoch time.Time) {
	c.ModTime, c.SchemaModTime = epoch, epoch
	for _, files := range [][]*common.File{c.Raw, c.Templates, c.Files} {
		for _, f := range files {
			f.ModTime = epoch
		}
	}
}

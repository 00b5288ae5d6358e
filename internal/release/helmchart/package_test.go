package helmchart

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/charts/tandem/charttest"
)

// copyChart copies charts/tandem into a scratch directory with every file
// at mtime, as a fresh clone would have them at its own time.
func copyChart(t *testing.T, mtime time.Time) string {
	t.Helper()
	src := filepath.Join(charttest.RepoRoot, charttest.Chart)
	dst := filepath.Join(t.TempDir(), "tandem")
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		return os.Chtimes(target, mtime, mtime)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestPackageIsReproducible: two checkouts whose files have different
// times give the same archive, byte for byte, named for the chart version.
func TestPackageIsReproducible(t *testing.T) {
	t.Parallel()
	epoch := time.Unix(1764892800, 0)
	var archives [][]byte
	for _, mtime := range []time.Time{time.Unix(1700000000, 0), time.Unix(1800000000, 0)} {
		path, err := Package(copyChart(t, mtime), t.TempDir(), "v1.2.3", epoch)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(path) != "tandem-1.2.3.tgz" {
			t.Errorf("packaged as %s, want tandem-1.2.3.tgz", filepath.Base(path))
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		archives = append(archives, data)
		if got, err := archiveTime(data); err != nil || !got.Equal(epoch) {
			t.Errorf("archive's time %v (%v), want the epoch %v", got, err, epoch)
		}
	}
	if !bytes.Equal(archives[0], archives[1]) {
		t.Error("the two checkouts' archives differ")
	}
}

// TestPackagedChartInstallsItsRelease: the packaged chart's image is the
// release's tandemctl, and it still renders examples/webhook's objects
// otherwise.
func TestPackagedChartInstallsItsRelease(t *testing.T) {
	t.Parallel()
	path, err := Package(filepath.Join(charttest.RepoRoot, charttest.Chart), t.TempDir(), "v1.2.3", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	objs := charttest.Template(t, path)
	if got := charttest.Field(objs[charttest.DeploymentKey], append(charttest.ContainerPath, "image")...); got != "ghcr.io/tandem-sh/tandemctl:v1.2.3" {
		t.Errorf("packaged chart's image %v, want ghcr.io/tandem-sh/tandemctl:v1.2.3", got)
	}
}

func TestPackageRefusesBadVersion(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	for _, v := range []string{"1.2.3", "v1.2", "dev", "v1.2.3.4"} {
		if _, err := Package(filepath.Join(charttest.RepoRoot, charttest.Chart), dist, v, time.Unix(0, 0)); err == nil {
			t.Errorf("version %q: packaged, want a refusal", v)
		}
	}
	if entries, _ := os.ReadDir(dist); len(entries) != 0 {
		t.Errorf("a refused version wrote %d files", len(entries))
	}
}

// TestPackageHoldsOnlyTheChart: the chart's tests (charttest/, beside it)
// stay out of the archive; its templates, values and schema are in.
func TestPackageHoldsOnlyTheChart(t *testing.T) {
	t.Parallel()
	path, err := Package(filepath.Join(charttest.RepoRoot, charttest.Chart), t.TempDir(), "v1.2.3", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tr := tar.NewReader(zr); ; {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
	}
	for _, want := range []string{"tandem/Chart.yaml", "tandem/values.yaml", "tandem/values.schema.json", "tandem/templates/deployment.yaml"} {
		if !slices.Contains(names, want) {
			t.Errorf("the archive lacks %s: %v", want, names)
		}
	}
	for _, name := range names {
		if strings.Contains(name, "charttest/") || strings.HasSuffix(name, ".go") {
			t.Errorf("the archive holds %s, a test of the chart", name)
		}
	}
}

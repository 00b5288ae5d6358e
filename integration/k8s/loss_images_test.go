//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The images of the loss tests: the OpenTelemetry Collector built from its
// Go modules (otelcol/, build-otelcol.sh) in an image of its real
// repository's name, FROM scratch as the collector's own image is, and the
// test image with otlpsend, the main that sends it numbered records.

const (
	collectorImage = "localhost/otel/opentelemetry-collector-contrib:0.165.1"
	senderImage    = "localhost/tandem-k8s/otlpsend:test"
	// A first build compiles the collector (about 3 min on 2 idle cores).
	lossImagesTimeout = 20 * time.Minute
)

var lossImages = sync.OnceValue(buildLossImages)

func buildLossImages() error {
	work, err := os.MkdirTemp("", "tandem-loss-images-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	ctx, cancel := context.WithTimeout(context.Background(), lossImagesTimeout)
	defer cancel()
	here := filepath.Join(repoRoot, "integration", "k8s")
	script := exec.CommandContext(ctx, filepath.Join(here, "build-otelcol.sh"))
	script.Stderr = os.Stderr // how long a first build took
	out, err := script.Output()
	if err != nil {
		return fmt.Errorf("build-otelcol.sh: %w", err)
	}
	collector := filepath.Join(work, "collector")
	sender := filepath.Join(work, "sender")
	for _, dir := range []string{collector, sender} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
	}
	if err := exec.CommandContext(ctx, "cp", strings.TrimSpace(string(out)), filepath.Join(collector, "otelcol-contrib")).Run(); err != nil {
		return fmt.Errorf("copy the collector: %w", err)
	}
	// As the collector's own image: the binary, its user, its entrypoint.
	containerfile := "FROM scratch\nCOPY otelcol-contrib /otelcol-contrib\nUSER 10001\nENTRYPOINT [\"/otelcol-contrib\"]\n"
	if err := importImage(ctx, collectorImage, collector, containerfile); err != nil {
		return err
	}
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", filepath.Join(sender, "otlpsend"), "./otlpsend")
	build.Dir, build.Env = here, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./otlpsend: %v: %s", err, out)
	}
	return importImage(ctx, senderImage, sender, "FROM "+testImage+"\nCOPY otlpsend /usr/local/bin/otlpsend\n")
}

// importImage writes containerfile into dir and builds and imports it as
// tag (import-image.sh); its file is named after the image, so that one
// dir can hold several.
func importImage(ctx context.Context, tag, dir, containerfile string) error {
	file := filepath.Join(dir, "Containerfile."+filepath.Base(strings.Split(tag, ":")[0]))
	if err := os.WriteFile(file, []byte(containerfile), 0o644); err != nil {
		return err
	}
	imp := exec.CommandContext(ctx, filepath.Join(repoRoot, "integration", "k8s", "import-image.sh"), tag, file, dir)
	if out, err := imp.CombinedOutput(); err != nil {
		return fmt.Errorf("import %s: %v: %s", tag, err, out)
	}
	return nil
}

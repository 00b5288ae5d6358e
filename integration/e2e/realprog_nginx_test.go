//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// downloadSize is the file nginx serves in realprog/nginx-download.yaml.
const downloadSize = 8 << 20

// nginx under `tandem run --rewrite TERM:QUIT` finishes a download in flight
// when the pod is stopped: the pod's SIGTERM reaches nginx as QUIT, its
// graceful shutdown.
func TestRealprogNginxFinishesDownload(t *testing.T) {
	run := playDownload(t, "realprog-nginx-download", true)
	if run.curlCode != 0 || run.got != downloadSize {
		t.Errorf("curl exited %d with %d of %d bytes; want 0 with every byte", run.curlCode, run.got, downloadSize)
	}
	run.pp.exitCodes(map[string]int{"web": 0, "browser": 0})
	logs := run.pp.logs()
	kit.MustFind(t, logs, kit.Program("web", "signal 3 (SIGQUIT) received"))
	kit.MustFind(t, logs, kit.Program("web", "gracefully shutting down"))
	t.Logf("pod stop with %d of %d bytes sent; the download then finished, and pod stop returned after %s",
		run.atStop, downloadSize, run.stopTook.Round(time.Millisecond))
}

// Control: without --rewrite, nginx gets the pod's SIGTERM, its fast
// shutdown, and the download is cut off. Asserted: tandem's part, that
// SIGTERM reached nginx unchanged; the download's fate is nginx's and
// curl's timing: reported.
func TestRealprogControlNginxWithoutRewrite(t *testing.T) {
	run := playDownload(t, "realprog-nginx-norewrite", false)
	t.Logf("control without --rewrite: curl exited %d with %d of %d bytes (%d at pod stop)",
		run.curlCode, run.got, downloadSize, run.atStop)
	kit.MustFind(t, run.pp.logs(), kit.Program("web", "signal 15 (SIGTERM) received"))
}

type downloadRun struct {
	pp          *playedPod
	atStop, got int64
	curlCode    int
	stopTook    time.Duration
}

// playDownload plays nginx and a rate-limited curl, stops the pod once the
// first bytes arrived, and says how much of the file curl got.
func playDownload(t *testing.T, name string, rewrite bool) downloadRun {
	t.Helper()
	p := realprogPod(t, "nginx-download.yaml", name)
	out := t.TempDir()
	p.HostPath("out", out)
	if !rewrite {
		p.DropFlag("web", "--rewrite")
	}
	pp := play(t, p)
	file := filepath.Join(out, "big")
	size := func() int64 {
		fi, err := os.Stat(file)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	pp.waitUntil(jobBound, "first bytes of the download", func() bool { return size() > 0 })
	run := downloadRun{pp: pp, atStop: size()}
	if run.atStop >= downloadSize {
		t.Fatalf("the download had finished before the pod stop: make it slower")
	}
	start := time.Now()
	// Its bound is far above the download's 8 s: SIGKILL must not end it.
	if _, _, err := podman(context.Background(), "pod", "stop", "--time", fmt.Sprint(int(jobBound.Seconds())), pp.name); err != nil {
		t.Fatal(err)
	}
	run.stopTook = time.Since(start)
	run.got, run.curlCode = size(), pp.state("browser").ExitCode
	return run
}

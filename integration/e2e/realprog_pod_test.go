//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// realprogPod reads integration/e2e/realprog/FILE, a Pod that plays real
// programs from realprogImage, and names it e2e-NAME-PID. Its emptyDir
// volumes are renamed VOLUME-<pod name>: podman 4.3 makes each emptyDir a
// named volume shared by every live pod that uses the name, so a fixed name
// would hand one test's done files to another.
func realprogPod(t *testing.T, file, name string) *pod {
	t.Helper()
	return realprogPodSharing(t, file, name, "")
}

// realprogPodSharing is realprogPod with the emptyDirs renamed
// VOLUME-shared, which pods given the same shared have in common.
func realprogPodSharing(t *testing.T, file, name, shared string) *pod {
	t.Helper()
	requireRealprog(t)
	data, err := os.ReadFile(filepath.Join(repoRoot, "integration", "e2e", "realprog", file))
	if err != nil {
		t.Fatal(err)
	}
	p := &pod{Manifest: kit.Parse(t, "realprog/"+file, data), name: fmt.Sprintf("e2e-%s-%d", name, os.Getpid())}
	p.SetName(p.name)
	if shared == "" {
		shared = p.name
	}
	p.renameVolumes(t, shared)
	return p
}

// renameVolumes renames every emptyDir VOLUME to VOLUME-suffix, in the
// volumes and in every volumeMount, and removes the named volumes when the
// test ends. Two pods given one suffix share their emptyDirs.
func (p *pod) renameVolumes(t *testing.T, suffix string) {
	t.Helper()
	var renamed []string
	for _, name := range p.EmptyDirs() {
		p.RenameVolume(name, name+"-"+suffix)
		renamed = append(renamed, name+"-"+suffix)
	}
	t.Cleanup(func() {
		// Runs after the pod's removal (cleanups run last first); a volume
		// still used by the other pod of a pair stays until its turn.
		for _, v := range renamed {
			_, _, _ = podman(context.Background(), "volume", "rm", "--force", v)
		}
	})
}

// staleVolume is the name renameVolumes gives: VOLUME-e2e-NAME-PID, or
// VOLUME-shared-PID for pods that share it.
var staleVolume = regexp.MustCompile(`-(e2e-.*|shared)-([0-9]+)$`)

// removeStaleVolumes removes the volumes of earlier runs that were killed
// before their cleanup ran, as removeStalePods does their pods.
func removeStaleVolumes() {
	removeStale("volume", staleVolume, func(name string) {
		// Without --force: a volume that a pod still uses stays.
		_ = exec.Command("podman", "volume", "rm", name).Run()
	})
}

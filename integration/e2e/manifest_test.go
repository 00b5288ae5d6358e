//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// pod is a Pod manifest made from an example, named NAME-PID (two runs on
// one machine do not replace each other's pods); its containers are then
// named NAME-PID-CONTAINER.
type pod struct {
	*kit.Manifest
	name string
}

// examplePod reads examples/FILE as a Pod named name-PID: a Job's or a
// Deployment's spec.template becomes the Pod (podman 4.3 plays neither
// kind), and every image is a local one, never pulled.
func examplePod(t *testing.T, file, name string) *pod {
	t.Helper()
	return podOf(t, kit.ReadExample(t, repoRoot, file), name)
}

// manifestPod is examplePod for a manifest in hand (the output of
// tandemctl inject); file names it in messages and for MarkPlayed.
func manifestPod(t *testing.T, file string, data []byte, name string) *pod {
	t.Helper()
	return podOf(t, kit.Parse(t, file, data), name)
}

func podOf(t *testing.T, m *kit.Manifest, name string) *pod {
	t.Helper()
	switch m.Kind() {
	case "Pod":
	case "Job", "Deployment":
		m.AsPod()
	default:
		t.Fatalf("%s: kind %q: expected Pod, Job or Deployment", m.Source, m.Kind())
	}
	p := &pod{Manifest: m, name: fmt.Sprintf("%s-%d", name, os.Getpid())}
	p.SetName(p.name)
	p.LocalImages(tandemImage, testImage)
	if yamlnode.Lookup(p.PodSpec(), "initContainers") != nil {
		// Podman 4.3 applies the pod's restart policy to init containers:
		// under Always (a Deployment's pod) it restarts a finished init
		// container in a loop and the pod never starts. The kubelet never
		// restarts a succeeded init container; OnFailure does the same here.
		if policy := yamlnode.ScalarAt(p.PodSpec(), "restartPolicy"); policy != "Never" && policy != "OnFailure" {
			p.SetPodSpec("restartPolicy", "OnFailure")
		}
		// Podman removes a finished init container ("once"), and with it its
		// exit code and logs; "always" keeps it, and it still runs once per
		// pod start.
		p.Annotate("io.podman.annotations.init.container.type", "always")
	}
	return p
}

// addContainer adds a container of the test image that the example does
// not name, as an admission webhook would (istio-proxy).
func (p *pod) addContainer(name string, command ...string) {
	p.AddContainer(kit.First, yamlnode.Mapping(
		"name", name, "image", testImage, "imagePullPolicy", "Never",
		"command", yamlnode.StringSeq(command)))
}

// yaml is the manifest podman plays.
func (p *pod) yaml() string { return string(p.YAML()) }

// ownVolumes gives the pod's emptyDirs names of its own (renameVolumes),
// for a test that runs in parallel with others: podman shares an emptyDir
// between the live pods that name it alike, and inject names every one
// "tandem".
func (p *pod) ownVolumes(t *testing.T) {
	t.Helper()
	p.renameVolumes(t, p.name)
}

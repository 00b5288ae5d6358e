package inject

import (
	"context"
	"fmt"

	"github.com/tandem-sh/tandem/kube/presets"
)

// Mode is how sidecars are made to start first and stop last.
type Mode string

const (
	// Classic wraps mains and sidecars in tandem in `containers`: every
	// cluster and engine.
	Classic Mode = "classic"
	// Native moves sidecars to initContainers with restartPolicy: Always
	// (Kubernetes 1.29+); tandem still wraps them and the mains, for the
	// promises the kubelet does not keep.
	Native Mode = "native"
	// Auto is native where the cluster's versions allow it, else classic
	// (ChooseMode): a mode for the command line, never an Options.Mode.
	Auto Mode = "auto"
)

// ParseMode reads --mode.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Classic, Native, Auto:
		return Mode(s), nil
	}
	return "", fmt.Errorf("mode %q: expected classic, native or auto", s)
}

// Options say how to inject; the same for every resource of a run.
type Options struct {
	Mode Mode
	// Install is how the binary reaches the containers; "" is InitCopy.
	Install Install
	// Image is the tandem image (holds /tandem): the install init
	// container's, or the image volume's.
	Image string
	// Version is written into the tandem.sh/injected annotation.
	Version string
	// Sidecars are container names that are sidecars in every pod that has
	// them (--sidecar), besides the pod's tandem.sh/sidecars annotation.
	Sidecars []string
	// Resolver reads image configs; nil means no lookups (--resolve none).
	Resolver EntrypointResolver
	// Presets are the known sidecars, named by image; nil: off
	// (--presets=false).
	Presets *presets.Table
}

// ImageConfig is what a container runtime takes from an image's config.
type ImageConfig struct {
	Entrypoint []string
	Cmd        []string
	// StopSignal is the image's STOPSIGNAL as written ("SIGQUIT", "3"), or "".
	StopSignal string
}

// EntrypointResolver reads the config of an image for the platform of the
// nodes. Implementations cache as they see fit; errors name the image.
type EntrypointResolver interface {
	Resolve(ctx context.Context, image string) (ImageConfig, error)
}

// The names tandem adds to a pod; existing ones collide.
const (
	VolumeName       = "tandem"
	InstallContainer = "tandem-install"
	MountPath        = "/run/tandem"
	// binary is where init-copy puts tandem (Install.BinaryPath).
	binary               = MountPath + "/tandem"
	SidecarsKey          = "tandem.sh/sidecars"
	InjectKey            = "tandem.sh/inject"
	InjectedKey          = "tandem.sh/injected"
	DefaultContainer     = "kubectl.kubernetes.io/default-container"
	defaultProbePeriod   = 10
	defaultProbeFailures = 3
	// nonRootUID is tandem-install's user (distroless's "nonroot").
	nonRootUID = "65532"
)

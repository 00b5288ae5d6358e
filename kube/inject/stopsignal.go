package inject

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// StopSignalKey prefixes the pod template annotation that states a
// container's stop signal (tandem.sh/stop-signal.CONTAINER: QUIT): the
// signal its runtime sends on pod deletion, the image's STOPSIGNAL. Unlike
// lifecycle.stopSignal (Kubernetes 1.33+, behind a feature gate) it works
// on every cluster, and it saves the registry lookup of a sidecar that has
// a command.
const StopSignalKey = "tandem.sh/stop-signal."

// stopSignalFix is how a user states a container's stop signal, the
// annotation first because it needs no feature gate.
func stopSignalFix(container string) string {
	return fmt.Sprintf("state the container's stop signal with the pod template annotation %s%s: QUIT (the signal its image's STOPSIGNAL names; TERM if none), or with lifecycle.stopSignal (Kubernetes 1.33+, feature gate ContainerStopSignals)",
		StopSignalKey, container)
}

// statedStopSignals reads the stop-signal annotations: the signal stated
// for each container (as tandem names it), or the first bad annotation.
func statedStopSignals(annotations *yaml.Node, containers []string) (map[string]string, error) {
	stated := map[string]string{}
	if annotations == nil || annotations.Kind != yaml.MappingNode {
		return stated, nil
	}
	var errs []error
	for i := 0; i+1 < len(annotations.Content); i += 2 {
		key, value := annotations.Content[i].Value, annotations.Content[i+1].Value
		name, ok := strings.CutPrefix(key, StopSignalKey)
		if !ok {
			continue
		}
		if !slices.Contains(containers, name) {
			errs = append(errs, notInPod{key, name, containers})
			continue
		}
		sig, err := signalName(value)
		if err != nil || strings.TrimSpace(value) == "" {
			errs = append(errs, fmt.Errorf("%s: %q: expected a signal name or number that tandem can catch, e.g. %s: QUIT", key, value, key))
			continue
		}
		stated[name] = sig
	}
	return stated, errors.Join(errs...)
}

// statedStopSignal is the signal the runtime stops c with, as the
// manifest states it (lifecycle.stopSignal or the annotation), and
// whether it does.
func (c *container) statedStopSignal() (string, bool, error) {
	own := yamlnode.ScalarAt(yamlnode.Lookup(c.node, "lifecycle"), "stopSignal")
	if own == "" {
		return c.statedSignal, c.statedSignal != "", nil
	}
	sig, err := signalName(own)
	if err != nil {
		return "", false, fmt.Errorf("lifecycle.stopSignal: %w", err)
	}
	if c.statedSignal != "" && c.statedSignal != sig {
		return "", false, fmt.Errorf("%s%s says %s but lifecycle.stopSignal says %s", StopSignalKey, c.name, c.statedSignal, own)
	}
	return sig, true, nil
}

package inject

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// notInPod is an annotation (key) naming a container the pod's containers
// and native sidecars (have) do not include.
type notInPod struct {
	key, name string
	have      []string
}

func (e notInPod) Error() string {
	return fmt.Sprintf("%s names container %q, which this pod does not have (it has %s): fix the annotation", e.key, e.name, strings.Join(e.have, ", "))
}

// initContainerNamed is e said of an init container that runs to
// completion (no restartPolicy: Always): the pod has it, but it ends
// before the containers start, so there is nothing for tandem to tie to
// them; a native sidecar would be wrapped in place.
func (e notInPod) initContainerNamed() error {
	return fmt.Errorf("%s names %q, an init container that runs to completion before the containers start (no restartPolicy: Always): tandem wraps containers and native sidecars, not it; "+
		"remove it from the annotation, or, if it is meant to run beside the mains, give it restartPolicy: Always (a native sidecar, Kubernetes 1.29+), which tandem wraps in place", e.key, e.name)
}

// explainInitContainers rewrites each notInPod in err (a joined one
// too) that names one of spec's init containers.
func explainInitContainers(spec *yaml.Node, err error) error {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range joined.Unwrap() {
			errs = append(errs, explainInitContainers(spec, e))
		}
		return errors.Join(errs...)
	}
	var missing notInPod
	if errors.As(err, &missing) && slices.Contains(initContainerNames(spec), missing.name) {
		return missing.initContainerNamed()
	}
	return err
}

// initContainerNames are the names of spec's init containers.
func initContainerNames(spec *yaml.Node) []string {
	var names []string
	for _, n := range contentOf(yamlnode.Lookup(spec, "initContainers")) {
		names = append(names, yamlnode.ScalarAt(n, "name"))
	}
	return names
}

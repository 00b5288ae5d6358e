package inject

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tandem-sh/tandem/internal/suggest"
	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// PolicyKey is the annotation tandem's admission policy writes on a pod it
// leaves alone, saying why.
const PolicyKey = "tandem.sh/policy"

// annotationPrefix begins every annotation of tandem's: any other under
// it is a typo, refused rather than ignored.
const annotationPrefix = "tandem.sh/"

// Annotations are tandem's pod template annotations: AnnotationKeys as
// they are, ContainerAnnotations followed by a container's name.
var (
	AnnotationKeys       = []string{SidecarsKey, NeedsKey, SidecarGraceKey, PresetsKey, InjectKey, InjectedKey, PolicyKey}
	ContainerAnnotations = []string{MaxRestartsKey, RestartWindowKey, StopDelayKey, StopSignalKey, SidecarGraceKey + "."}
)

// The values of tandem.sh/inject: OptOutValues leave the pod alone;
// OptInValues (the same as none) let it be injected.
var (
	OptOutValues = []string{"disabled", "false"}
	OptInValues  = []string{"enabled", "true"}
)

// KnownAnnotation: key is one of tandem's annotations.
func KnownAnnotation(key string) bool {
	return slices.Contains(AnnotationKeys, key) || slices.ContainsFunc(ContainerAnnotations, func(p string) bool { return strings.HasPrefix(key, p) })
}

// checkAnnotations refuses a tandem.sh/ annotation tandem does not know,
// naming the one that was likely meant, and a tandem.sh/inject value it
// does not take: a typo must not leave a pod silently uninjected, or
// injected with less than was asked.
func checkAnnotations(annotations *yaml.Node) error {
	var errs []error
	for i := 0; annotations != nil && annotations.Kind == yaml.MappingNode && i+1 < len(annotations.Content); i += 2 {
		key := annotations.Content[i].Value
		if strings.HasPrefix(key, annotationPrefix) && !KnownAnnotation(key) {
			errs = append(errs, unknownAnnotation(key))
		}
	}
	if v := yamlnode.ScalarAt(annotations, InjectKey); v != "" && !slices.Contains(OptInValues, v) && !slices.Contains(OptOutValues, v) {
		errs = append(errs, fmt.Errorf("%s: %q: expected %s to leave the pod alone, or %s", InjectKey, v, strings.Join(OptOutValues, " or "), strings.Join(OptInValues, " or ")))
	}
	return errors.Join(errs...)
}

// unknownAnnotation says key is none of tandem's, and which it likely
// meant: for tandem.sh/max-restart.proxy, tandem.sh/max-restarts.proxy.
func unknownAnnotation(key string) error {
	name, container, perContainer := strings.Cut(strings.TrimPrefix(key, annotationPrefix), ".")
	if container == "" {
		container = "CONTAINER"
	}
	// forms: each annotation's name (sidecar-grace), as it would be written.
	forms := map[string]string{}
	all := slices.Clone(AnnotationKeys)
	for _, k := range AnnotationKeys {
		forms[strings.TrimPrefix(k, annotationPrefix)] = k
	}
	for _, p := range ContainerAnnotations {
		n := strings.TrimSuffix(strings.TrimPrefix(p, annotationPrefix), ".")
		if _, fixed := forms[n]; !fixed || perContainer {
			forms[n] = p + container
		}
		all = append(all, p+"CONTAINER")
	}
	names := slices.Sorted(maps.Keys(forms))
	msg := "unknown annotation " + key + ":"
	if near, ok := suggest.Near(name, names); ok {
		msg += " did you mean " + forms[near] + "?"
	}
	return fmt.Errorf("%s tandem's are %s (docs/inject.md#annotations)", msg, strings.Join(all, ", "))
}

package policy

import (
	"strings"

	"github.com/tandem-sh/tandem/kube/inject"
)

// annotationErrors is the variable that lists the pod's tandem.sh/
// annotations that are none of tandem's, and a tandem.sh/inject value
// tandem does not take, as inject refuses them: a typo is refused even on a
// pod that names no sidecars.
func annotationErrors() variable {
	all := append(append([]string{}, inject.AnnotationKeys...), inject.ContainerAnnotations...)
	for i := len(inject.AnnotationKeys); i < len(all); i++ {
		all[i] += "CONTAINER"
	}
	values := append(append([]string{}, inject.OptOutValues...), inject.OptInValues...)
	return variable{"annotationErrors", v("ann") + ".filter(k, k.startsWith('tandem.sh/') && !" + knownAnnotation("k") + ")" +
		".map(k, 'unknown annotation ' + k + ': tandem\\'s are " + strings.Join(all, ", ") +
		" (docs/inject.md#annotations)') + " +
		"(" + str(inject.InjectKey) + " in " + v("ann") + " && !(" + v("ann") + "[" + str(inject.InjectKey) + "] in " +
		strList(values) + ") ? " +
		"[" + str(inject.InjectKey+": expected "+strings.Join(inject.OptOutValues, " or ")+
		" to leave the pod alone, or "+strings.Join(inject.OptInValues, " or ")) + "] : [])"}
}

// knownAnnotation is the CEL of inject.KnownAnnotation(key).
func knownAnnotation(key string) string {
	return "(" + key + " in " + strList(inject.AnnotationKeys) + " || " + strList(inject.ContainerAnnotations) +
		".exists(p, " + key + ".startsWith(p)))"
}

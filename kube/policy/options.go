package policy

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// Options say what policy to write.
type Options struct {
	// Name of the policies and their bindings.
	Name string
	// Mode is Classic or Native: a policy is written once for every node,
	// so it cannot pick one per pod as --mode auto does.
	Mode inject.Mode
	// Install is InitCopy or ImageVolume, for the same reason.
	Install inject.Install
	Image   string
	Version string
	// Sidecars are container names that are sidecars in every pod (--sidecar).
	Sidecars []string
	// Presets are the known sidecars; nil: off.
	Presets *presets.Table
	// NamespaceSelector selects the namespaces whose pods are injected.
	NamespaceSelector *metav1.LabelSelector
	OnError           inject.OnError
	// Annotations go on the mutating policy: what tandemctl chose for
	// --mode auto and --install auto, and why (ModeKey, InstallKey).
	Annotations map[string]string
}

// The annotations of a choice made for auto ("auto: native"); its reason is
// under the same key with "-reason".
const (
	ModeKey    = "tandem.sh/mode"
	InstallKey = "tandem.sh/install"
)

// check refuses what a policy cannot be written for.
func (o Options) check() error {
	switch {
	case o.Mode != inject.Classic && o.Mode != inject.Native:
		return fmt.Errorf("mode %q: expected classic or native (a policy cannot ask each node's kubelet, as auto does)", o.Mode)
	case o.Install != inject.InitCopy && o.Install != inject.ImageVolume:
		return fmt.Errorf("install %q: expected init-copy or image-volume (a policy cannot ask each node's runtime, as auto does)", o.Install)
	case o.Image == "":
		return fmt.Errorf("image: expected the tandem image")
	case o.NamespaceSelector == nil:
		return fmt.Errorf("namespace selector: expected one (a policy for every namespace would inject the system's own pods)")
	}
	return nil
}

package release

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/krew/pkg/constants"
	"sigs.k8s.io/krew/pkg/index"
	"sigs.k8s.io/yaml"
)

// The krew plugin: tandemctl, installed as kubectl-tandem so that
// `kubectl tandem inject` works (docs/releases.md).
const (
	KrewPlugin = "tandem"
	// KrewBin is the binary's name in the archive, and the manifest's bin.
	KrewBin = "kubectl-tandem"
	// KrewManifestFile is the manifest's name in dist/.
	KrewManifestFile = "tandem.krew.yaml"
	krewHomepage     = Repository
	krewShort        = "Make Jobs with sidecars complete: run their containers under tandem"
	krewDescription  = `A Job whose pod has a sidecar never completes: the sidecar runs on after
the main work ends. tandem, a small static PID-1 supervisor, stops the
sidecar when the main container is done. This plugin is tandemctl:
"kubectl tandem inject" wraps the containers of manifests in tandem,
offline; "kubectl tandem check" finds the Jobs held by their sidecars;
"kubectl tandem webhook" does the injection as an admission webhook.
`
)

// KrewArchiveName is the name of the krew archive of linux/arch, the
// goreleaser-style name most krew plugins use.
func KrewArchiveName(version, arch string) string {
	return fmt.Sprintf("%s_%s_linux_%s.tar.gz", KrewBin, version, arch)
}

// KrewArchive is one platform's archive, as the manifest names it.
type KrewArchive struct {
	Arch   string
	URI    string
	Sha256 string // hex
	Files  []string
}

// KrewManifest is the krew plugin manifest of version, krew's own type:
// one platform per archive, each selected by os linux and its arch.
func KrewManifest(version string, archives []KrewArchive) index.Plugin {
	p := index.Plugin{
		TypeMeta:   metav1.TypeMeta{APIVersion: constants.CurrentAPIVersion, Kind: constants.PluginKind},
		ObjectMeta: metav1.ObjectMeta{Name: KrewPlugin},
		Spec: index.PluginSpec{
			Version:          version,
			Homepage:         krewHomepage,
			ShortDescription: krewShort,
			Description:      krewDescription,
		},
	}
	for _, a := range archives {
		var files []index.FileOperation
		for _, f := range a.Files {
			files = append(files, index.FileOperation{From: f, To: "."})
		}
		p.Spec.Platforms = append(p.Spec.Platforms, index.Platform{
			URI:      a.URI,
			Sha256:   a.Sha256,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"os": "linux", "arch": a.Arch}},
			Files:    files,
			Bin:      KrewBin,
		})
	}
	return p
}

// MarshalKrewManifest is p as YAML (sigs.k8s.io/yaml: keys sorted, so the
// same manifest gives the same bytes).
func MarshalKrewManifest(p index.Plugin) ([]byte, error) {
	out, err := yaml.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("krew manifest: %w", err)
	}
	return out, nil
}

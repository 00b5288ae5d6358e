//go:build release

package release

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/release"
	"github.com/tandem-sh/tandem/internal/release/helmchart"
)

// TestSignedPublishVerifies: `make publish COSIGN_KEY=…` signs both
// pushed images and attests their SBOMs and provenance; in the loopback
// registry, as a user would, cosign verify and verify-attestation (SPDX,
// CycloneDX, SLSA provenance) with the public key accept each image (and
// cosign verify each architecture's image in it), the
// SBOMs name both architectures' binaries and the provenance the commit;
// cosign verify accepts the pushed chart too. The controls: another image
// pushed under the release's tag fails cosign verify and
// verify-attestation, and so does the release (images and chart) checked
// against another key pair.
func TestSignedPublishVerifies(t *testing.T) {
	s := newSigner(t)
	registry := startRegistry(t) + "/tandem-sh"
	version := annotations(t, archive(t, s.dist, "tandem"))[release.AnnotationVersion]
	commit := annotations(t, archive(t, s.dist, "tandem"))["org.opencontainers.image.revision"]
	t.Log(s.make(t, "publish", "VERSION="+version, "REGISTRY="+registry, "DIST="+s.dist))
	for _, image := range images {
		idx := archive(t, s.dist, image)
		digest, err := idx.Digest()
		if err != nil {
			t.Fatal(err)
		}
		ref := registry + "/" + image + "@" + digest.String()
		s.cosign(t, append(verifyImage, ref)...)
		manifest, err := idx.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range manifest.Manifests { // signed too: cosign sign --recursive
			s.cosign(t, append(verifyImage, registry+"/"+image+"@"+m.Digest.String())...)
		}
		s.checkAttestations(t, ref, image, commit)
		s.refusesOtherKey(t, ref)
	}
	chartVersion, err := helmchart.Version(version)
	if err != nil {
		t.Fatal(err)
	}
	chart := helmchart.Ref(registry) + ":" + chartVersion
	s.cosign(t, append(verifyImage, chart)...)
	other := t.TempDir()
	s.cosign(t, "generate-key-pair", "--output-key-prefix", filepath.Join(other, "cosign"))
	s.refuses(t, other, append(verifyImage, chart)...)
	tag := registry + "/tandem:" + version
	s.cosign(t, append(verifyImage, tag)...)
	pushRandom(t, tag)
	s.refuses(t, s.dir, append(verifyImage, tag)...)
	s.refuses(t, s.dir, append(verifyAttestation, "slsaprovenance1", tag)...)
}

// checkAttestations runs docs/releases.md's verify-attestation of ref for
// each type and checks what the statements say.
func (s signer) checkAttestations(t *testing.T, ref, image, commit string) {
	t.Helper()
	spdx := attestations(t, s.cosign(t, append(verifyAttestation, "spdxjson", ref)...))
	var names []string
	for _, st := range spdx {
		names = append(names, st.Predicate.Name)
	}
	sort.Strings(names)
	if want := image + "-linux-amd64 " + image + "-linux-arm64"; strings.Join(names, " ") != want {
		t.Errorf("%s: SPDX attestations of %v, want %s", image, names, want)
	}
	if n := len(attestations(t, s.cosign(t, append(verifyAttestation, "cyclonedx", ref)...))); n != 2 {
		t.Errorf("%s: %d CycloneDX attestations, want one per architecture", image, n)
	}
	prov := attestations(t, s.cosign(t, append(verifyAttestation, "slsaprovenance1", ref)...))
	if len(prov) != 1 || prov[0].PredicateType != release.ProvenanceType || prov[0].commit() != commit {
		t.Fatalf("%s: provenance %+v, want one naming the commit %s", image, prov, commit)
	}
	if got := prov[0].Subject; len(got) != 1 || "sha256:"+got[0].Digest["sha256"] != ref[strings.LastIndex(ref, "@")+1:] {
		t.Errorf("%s: provenance subject %+v, want %s", image, got, ref)
	}
}

// refusesOtherKey: the release checked against a key pair that did not
// sign it fails verify and verify-attestation.
func (s signer) refusesOtherKey(t *testing.T, ref string) {
	t.Helper()
	other := t.TempDir()
	s.cosign(t, "generate-key-pair", "--output-key-prefix", filepath.Join(other, "cosign"))
	s.refuses(t, other, append(verifyImage, ref)...)
	s.refuses(t, other, append(verifyAttestation, "spdxjson", ref)...)
}

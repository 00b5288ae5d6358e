package release

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/krew/pkg/index"
)

// TestKrewValidatorAcceptsTheManifest: krew's validate-krew-manifest
// accepts the manifest make release writes.
func TestKrewValidatorAcceptsTheManifest(t *testing.T) {
	archives, _ := testKrewArchives(t)
	out, err := MarshalKrewManifest(KrewManifest("v1.2.3", archives))
	if err != nil {
		t.Fatal(err)
	}
	if err := (KrewValidator{}).Validate(context.Background(), out); err != nil {
		t.Errorf("%v\n%s", err, out)
	}
}

// TestKrewValidatorRejectsBrokenManifests is the control: each manifest
// broken in one way is refused by krew's validator, and the error says
// krew's reason, so the test above proves something.
func TestKrewValidatorRejectsBrokenManifests(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		breakIt    func(p *index.Plugin)
	}{
		{"sha256 not hex", "`sha256` value", func(p *index.Plugin) { p.Spec.Platforms[0].Sha256 = "not-a-sha256" }},
		{"no bin", "`bin` has to be set", func(p *index.Plugin) { p.Spec.Platforms[1].Bin = "" }},
		{"version not semver", "failed to parse plugin version", func(p *index.Plugin) { p.Spec.Version = "1.2" }},
		{"another name", `plugin should be named "tandem"`, func(p *index.Plugin) { p.Name = "tandemctl" }},
		{"selector key", `key "cpu" not supported`, func(p *index.Plugin) { p.Spec.Platforms[0].Selector.MatchLabels["cpu"] = "x" }},
		{"one arch twice", "overlapping platform selectors", func(p *index.Plugin) {
			p.Spec.Platforms[1].Selector.MatchLabels["arch"] = "amd64"
		}},
		{"unknown arch", "doesn't match any supported platforms", func(p *index.Plugin) {
			p.Spec.Platforms[1].Selector.MatchLabels["arch"] = "sparc"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			archives, _ := testKrewArchives(t)
			p := KrewManifest("v1.2.3", archives)
			tc.breakIt(&p)
			out, err := MarshalKrewManifest(p)
			if err != nil {
				t.Fatal(err)
			}
			err = (KrewValidator{}).Validate(context.Background(), out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

package release

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

const testBOM = `{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,
"metadata":{"component":{"type":"application","name":"github.com/tandem-sh/tandem","version":"v1.2.3"}},
"components":[{"name":"github.com/rs/zerolog","version":"v1.35.1"}]}`

// TestCycloneDXLicenseNamesTheBinary: the described component gains the
// project's license; the rest reads back unchanged; the same input gives
// the same bytes.
func TestCycloneDXLicenseNamesTheBinary(t *testing.T) {
	out, err := CycloneDXLicense([]byte(testBOM))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := CycloneDXLicense([]byte(testBOM))
	if !bytes.Equal(out, again) {
		t.Error("two runs over one SBOM differ")
	}
	var doc struct {
		SpecVersion string `json:"specVersion"`
		Metadata    struct {
			Component struct {
				Name     string `json:"name"`
				Licenses []struct {
					License struct{ ID string } `json:"license"`
				} `json:"licenses"`
			} `json:"component"`
		} `json:"metadata"`
		Components []struct{ Name string } `json:"components"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Metadata.Component
	if len(c.Licenses) != 1 || c.Licenses[0].License.ID != "Apache-2.0" {
		t.Errorf("metadata.component.licenses %+v, want the one license Apache-2.0", c.Licenses)
	}
	if c.Name != "github.com/tandem-sh/tandem" || doc.SpecVersion != "1.6" || len(doc.Components) != 1 {
		t.Errorf("the rest of the SBOM changed: %s", out)
	}
}

func TestCycloneDXLicenseRefusesOtherDocuments(t *testing.T) {
	for _, in := range []string{`not json`, `{"spdxVersion":"SPDX-2.3"}`, `{"bomFormat":"CycloneDX"}`} {
		if _, err := CycloneDXLicense([]byte(in)); err == nil || !strings.Contains(err.Error(), "CycloneDX") {
			t.Errorf("%s: err %v, want a CycloneDX SBOM refused", in, err)
		}
	}
}

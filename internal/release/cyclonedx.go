package release

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// CycloneDXLicense returns bom, a CycloneDX JSON SBOM of a released binary
// (cyclonedx-gomod's), with the project's License as the license of the
// component it describes (metadata.component). cyclonedx-gomod finds a
// license only by downloading the main module at the release's version,
// which is not published yet when the SBOM is made. The other components
// are left as they are. Keys come out sorted, so the same bom gives the
// same bytes.
func CycloneDXLicense(bom []byte) ([]byte, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(bom))
	dec.UseNumber() // numbers pass through as written
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("CycloneDX SBOM: %w", err)
	}
	meta, _ := doc["metadata"].(map[string]any)
	component, _ := meta["component"].(map[string]any)
	if doc["bomFormat"] != "CycloneDX" || component == nil {
		return nil, fmt.Errorf("not a CycloneDX SBOM with a metadata.component (bomFormat %v)", doc["bomFormat"])
	}
	component["licenses"] = []any{map[string]any{"license": map[string]any{"id": License}}}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

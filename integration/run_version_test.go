package integration

import (
	"debug/buildinfo"
	"strings"
	"testing"
)

// TestVersion: `tandem version` prints the version, the commit and the Go
// version the binary was built with.
func TestVersion(t *testing.T) {
	code, stdout, stderr := runTandem(t, procOptions{}, "version")
	if code != 0 {
		t.Fatalf("version exited %d: %s", code, stderr)
	}
	info, err := buildinfo.ReadFile(tandemBin)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("version printed %q, want three lines: version, commit, Go", stdout)
	}
	if v, ok := strings.CutPrefix(lines[0], "tandem "); !ok || strings.TrimSpace(v) == "" {
		t.Errorf("first line %q, want \"tandem VERSION\"", lines[0])
	}
	if c, ok := strings.CutPrefix(lines[1], "commit "); !ok || strings.TrimSpace(c) == "" {
		t.Errorf("second line %q, want \"commit COMMIT\"", lines[1])
	}
	if !strings.HasPrefix(lines[2], info.GoVersion+" ") {
		t.Errorf("third line %q, want the Go version %s the binary was built with", lines[2], info.GoVersion)
	}
}

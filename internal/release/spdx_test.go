package release

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	spdxjson "github.com/spdx/tools-golang/json"
	"github.com/spdx/tools-golang/spdxlib"
)

// testBinary is a binary's content and build information: this test's
// own executable's Go, with two modules (a test binary records none).
func testBinary(t *testing.T) ([]byte, BuildInfo) {
	t.Helper()
	path, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	info, err := ReadBuildInfo(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.GoVersion != runtime.Version() {
		t.Errorf("build information says %s, the test runs %s", info.GoVersion, runtime.Version())
	}
	info.Main = "github.com/tandem-sh/tandem"
	info.Deps = []Module{
		{Path: "github.com/rs/zerolog", Version: "v1.35.1", Sum: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
		{Path: "example.com/local", Version: "(devel)"},
	}
	return []byte("the binary"), info
}

// TestSPDXIsValidAndStable: the document reads back as valid SPDX 2.3,
// describes the binary by its SHA-256, lists every linked module with its
// package URL, and is the same bytes when made twice.
func TestSPDXIsValidAndStable(t *testing.T) {
	bin, info := testBinary(t)
	in := SPDXInput{Binary: bin, Info: info, Name: "tandem-linux-amd64", Version: "v1.2.3", Created: epoch}
	first, err := SPDX(in)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := SPDX(in)
	if !bytes.Equal(first, second) {
		t.Error("two SPDX documents of one binary differ")
	}
	doc, err := spdxjson.Read(bytes.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	if err := spdxlib.ValidateDocument(doc); err != nil {
		t.Errorf("read back, the document is not valid: %v", err)
	}
	if doc.SPDXVersion != "SPDX-2.3" || doc.CreationInfo.Created != epoch.UTC().Format(time.RFC3339) {
		t.Errorf("version %s created %s, want SPDX-2.3 at the commit's time", doc.SPDXVersion, doc.CreationInfo.Created)
	}
	root := doc.Packages[0]
	if root.PackageChecksums[0].Value != Sha256Hex(bin) || root.PackageVersion != "v1.2.3" {
		t.Errorf("described package %s %s, want the binary's SHA-256 and the version", root.PackageChecksums[0].Value, root.PackageVersion)
	}
	if root.PackageLicenseDeclared != "Apache-2.0" || root.PackageLicenseConcluded != "Apache-2.0" {
		t.Errorf("the binary's license: declared %q, concluded %q; want Apache-2.0 (LICENSE)", root.PackageLicenseDeclared, root.PackageLicenseConcluded)
	}
	if len(doc.Packages) != len(info.Deps)+2 {
		t.Errorf("%d packages, want the binary, the standard library and %d modules", len(doc.Packages), len(info.Deps))
	}
	if len(info.Deps) == 0 || !strings.Contains(string(first), `"`+info.Deps[0].PURL()+`"`) {
		t.Errorf("no package URL of the first module %v", info.Deps)
	}
}

// TestSPDXNamespaceFollowsTheBinary: a binary with no modules still gives
// a document (the standard library alone), and the namespace changes with
// the binary.
func TestSPDXNamespaceFollowsTheBinary(t *testing.T) {
	in := SPDXInput{Binary: []byte("one"), Info: BuildInfo{GoVersion: "go1.26.8", Main: "example.com/x"}, Name: "x", Version: "v1.0.0", Created: epoch}
	a, err := SPDX(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Binary = []byte("two")
	b, _ := SPDX(in)
	docA, _ := spdxjson.Read(bytes.NewReader(a))
	docB, _ := spdxjson.Read(bytes.NewReader(b))
	if docA.DocumentNamespace == docB.DocumentNamespace {
		t.Errorf("two binaries share the namespace %s", docA.DocumentNamespace)
	}
}

package release

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	slsa "github.com/in-toto/attestation/go/predicates/provenance/v1"
	attv1 "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

const testCommit = "0123456789abcdef0123456789abcdef01234567"

func testProvenance(t *testing.T) (ProvenanceInput, []byte) {
	t.Helper()
	bin, info := testBinary(t)
	in := ProvenanceInput{
		Subjects: []Subject{{Name: "tandem-linux-amd64", SHA256: Sha256Hex(bin)}, {Name: "ghcr.io/tandem-sh/tandem", SHA256: Sha256Hex([]byte("index"))}},
		Version:  "v1.2.3", Commit: testCommit, Builder: "https://example.com/builder",
		Binaries: map[string]BuildInfo{"tandem-linux-amd64": info, "other": info},
	}
	statement, err := Provenance(in)
	if err != nil {
		t.Fatal(err)
	}
	return in, statement
}

// TestProvenanceReadsBackAsSLSA: the statement parses with in-toto's own
// types and validates, names every subject, the commit as the first
// resolved dependency and every module once, and is the same bytes twice.
func TestProvenanceReadsBackAsSLSA(t *testing.T) {
	in, statement := testProvenance(t)
	if again, _ := Provenance(in); !bytes.Equal(statement, again) {
		t.Error("two statements of one release differ")
	}
	var st attv1.Statement
	if err := protojson.Unmarshal(statement, &st); err != nil {
		t.Fatal(err)
	}
	if err := st.Validate(); err != nil || st.PredicateType != ProvenanceType || len(st.Subject) != 2 {
		t.Fatalf("statement %v: predicate %s, %d subjects", err, st.PredicateType, len(st.Subject))
	}
	raw, _ := protojson.Marshal(st.Predicate)
	var prov slsa.Provenance
	if err := protojson.Unmarshal(raw, &prov); err != nil {
		t.Fatal(err)
	}
	if err := prov.Validate(); err != nil {
		t.Fatal(err)
	}
	deps := prov.BuildDefinition.ResolvedDependencies
	if deps[0].Digest["gitCommit"] != testCommit {
		t.Errorf("first resolved dependency %v, want the commit %s", deps[0], testCommit)
	}
	mods := in.Binaries["other"].Deps
	if len(deps) != len(mods)+2 {
		t.Errorf("%d resolved dependencies, want the commit, the standard library and %d modules, once each", len(deps), len(mods))
	}
	if got := prov.BuildDefinition.InternalParameters.Fields["binaries"].GetStructValue().Fields["tandem-linux-amd64"]; got == nil {
		t.Error("no build settings for tandem-linux-amd64")
	}
}

// TestProvenancePredicateIsThePredicate: what make publish attaches is
// the statement's predicate, and a file that is not SLSA provenance is
// refused by name.
func TestProvenancePredicateIsThePredicate(t *testing.T) {
	_, statement := testProvenance(t)
	p, err := ProvenancePredicate(statement)
	if err != nil {
		t.Fatal(err)
	}
	var pred map[string]any
	if err := json.Unmarshal(p, &pred); err != nil || pred["buildDefinition"] == nil {
		t.Errorf("predicate %v: %.200s", err, p)
	}
	_, err = ProvenancePredicate([]byte(`{"predicateType":"https://spdx.dev/Document"}`))
	if err == nil || !strings.Contains(err.Error(), "https://spdx.dev/Document") {
		t.Errorf("another predicate type: %v", err)
	}
}

// TestSumHex: go.sum's h1: hash as in-toto's dirHash, and none for a
// module without one.
func TestSumHex(t *testing.T) {
	m := Module{Sum: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}
	if got := m.SumHex(); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("SumHex %q", got)
	}
	if got := (Module{Sum: "h2:x"}).SumHex(); got != "" {
		t.Errorf("SumHex of an unknown hash %q", got)
	}
}

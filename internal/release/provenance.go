package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	slsa "github.com/in-toto/attestation/go/predicates/provenance/v1"
	attv1 "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

const (
	// ProvenanceFile is the release's provenance statement in dist/.
	ProvenanceFile = "provenance.intoto.json"
	// ProvenanceType is the predicate type of SLSA provenance v1, what
	// cosign calls slsaprovenance1.
	ProvenanceType = "https://slsa.dev/provenance/v1"
	// BuildType names how a release is built: `make release`, as
	// docs/releases.md describes it.
	BuildType = Repository + "/blob/main/docs/releases.md#make-a-release"
)

// Subject is an artifact the provenance is about: a file by its name, or
// an image by its repository, and its SHA-256.
type Subject struct {
	Name, SHA256 string
}

// ProvenanceInput is what a release's provenance records.
type ProvenanceInput struct {
	Subjects []Subject
	// Version and Commit (in full) are the release's.
	Version, Commit string
	// Builder identifies who ran `make release`, a URI.
	Builder string
	// Binaries are the released binaries' build information by file name:
	// their Go, flags and modules are the build's inputs.
	Binaries map[string]BuildInfo
}

// Provenance is the in-toto Statement v1, SLSA provenance v1 predicate, of
// a release: every subject, built from the repository at the commit
// (externalParameters; the commit is also the first resolved dependency),
// by the Go and with the flags each binary records (internalParameters),
// from the modules every binary was linked from (resolvedDependencies,
// each with go.sum's hash). It holds no time (the times of SLSA's run
// metadata are optional), so two builds of the commit write the same bytes.
func Provenance(in ProvenanceInput) ([]byte, error) {
	predicate, err := provenancePredicate(in)
	if err != nil {
		return nil, err
	}
	st := &attv1.Statement{Type: attv1.StatementTypeUri, PredicateType: ProvenanceType, Predicate: predicate}
	for _, s := range in.Subjects {
		st.Subject = append(st.Subject, &attv1.ResourceDescriptor{Name: s.Name, Digest: map[string]string{"sha256": s.SHA256}})
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("provenance statement: %w", err)
	}
	return stableJSON(st)
}

func provenancePredicate(in ProvenanceInput) (*structpb.Struct, error) {
	external, err := structpb.NewStruct(map[string]any{
		"repository": Repository,
		"ref":        "refs/tags/" + in.Version,
		"version":    in.Version,
	})
	if err != nil {
		return nil, err
	}
	internal, err := structpb.NewStruct(map[string]any{"binaries": binarySettings(in.Binaries)})
	if err != nil {
		return nil, err
	}
	prov := &slsa.Provenance{
		BuildDefinition: &slsa.BuildDefinition{
			BuildType:            BuildType,
			ExternalParameters:   external,
			InternalParameters:   internal,
			ResolvedDependencies: resolved(in),
		},
		RunDetails: &slsa.RunDetails{Builder: &slsa.Builder{Id: in.Builder}},
	}
	if err := prov.Validate(); err != nil {
		return nil, fmt.Errorf("provenance: %w", err)
	}
	raw, err := protojson.Marshal(prov)
	if err != nil {
		return nil, err
	}
	predicate := &structpb.Struct{}
	return predicate, protojson.Unmarshal(raw, predicate)
}

// binarySettings is, by file name, each binary's Go and recorded build
// settings.
func binarySettings(bins map[string]BuildInfo) map[string]any {
	out := map[string]any{}
	for name, info := range bins {
		settings := map[string]any{"go": info.GoVersion}
		for k, v := range info.Settings {
			settings[k] = v
		}
		out[name] = settings
	}
	return out
}

// resolved is the commit, then every Go toolchain and module any binary
// was built with, once each, sorted.
func resolved(in ProvenanceInput) []*attv1.ResourceDescriptor {
	seen := map[string]*attv1.ResourceDescriptor{}
	for _, info := range in.Binaries {
		std := Module{Path: "stdlib", Version: info.GoVersion}
		for _, m := range append([]Module{std}, info.Deps...) {
			rd := &attv1.ResourceDescriptor{Uri: m.PURL()}
			if sum := m.SumHex(); sum != "" {
				rd.Digest = map[string]string{"dirHash": sum}
			}
			seen[rd.Uri] = rd
		}
	}
	uris := make([]string, 0, len(seen))
	for uri := range seen {
		uris = append(uris, uri)
	}
	sort.Strings(uris)
	out := []*attv1.ResourceDescriptor{{
		Uri:    "git+" + Repository + "@refs/tags/" + in.Version,
		Digest: map[string]string{"gitCommit": in.Commit},
	}}
	for _, uri := range uris {
		out = append(out, seen[uri])
	}
	return out
}

// stableJSON is m as indented JSON with sorted keys: protojson's own output
// varies its spacing from build to build on purpose.
func stableJSON(m proto.Message) ([]byte, error) {
	raw, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(v, "", "  ")
	return append(out, '\n'), err
}

// ProvenancePredicate is the predicate of the provenance statement
// statement, what `cosign attest --type slsaprovenance1` attaches to an
// image (cosign writes the statement around it, naming the image).
func ProvenancePredicate(statement []byte) ([]byte, error) {
	var st struct {
		PredicateType string          `json:"predicateType"`
		Predicate     json.RawMessage `json:"predicate"`
	}
	if err := json.Unmarshal(statement, &st); err != nil {
		return nil, fmt.Errorf("provenance statement: %w", err)
	}
	if st.PredicateType != ProvenanceType || len(st.Predicate) == 0 {
		return nil, fmt.Errorf("provenance statement: predicateType %q, expected %s", st.PredicateType, ProvenanceType)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, st.Predicate, "", "  "); err != nil {
		return nil, err
	}
	return append(out.Bytes(), '\n'), nil
}

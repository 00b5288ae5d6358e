package inject

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"go.yaml.in/yaml/v3"
)

// fakeResolver serves image configs from a map and counts lookups.
type fakeResolver struct {
	images  map[string]ImageConfig
	lookups []string
}

var _ EntrypointResolver = (*fakeResolver)(nil)

func (f *fakeResolver) Resolve(_ context.Context, image string) (ImageConfig, error) {
	f.lookups = append(f.lookups, image)
	config, ok := f.images[image]
	if !ok {
		return ImageConfig{}, errors.New("MANIFEST_UNKNOWN: manifest unknown")
	}
	return config, nil
}

// testOptions inject in classic mode with the images the tests use.
func testOptions() Options {
	return Options{
		Mode:    Classic,
		Image:   "ghcr.io/tandem-sh/tandem:v1.2.3",
		Version: "v1.2.3",
		Resolver: &fakeResolver{images: map[string]ImageConfig{
			"postgres:16":  {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"postgres"}, StopSignal: "SIGINT"},
			"proxy:2":      {Entrypoint: []string{"/cloud-sql-proxy"}},
			"nginx:1":      {Entrypoint: []string{"/docker-entrypoint.sh"}, Cmd: []string{"nginx", "-g", "daemon off;"}, StopSignal: "SIGQUIT"},
			"busybox:1":    {Cmd: []string{"sh"}},
			"shipper:1":    {Entrypoint: []string{"/fluent-bit"}, StopSignal: "15"},
			"app:1":        {Entrypoint: []string{"/app"}},
			"nothing:1":    {},
			"badsignal:1":  {Entrypoint: []string{"/x"}, StopSignal: "SIG KILL"},
			"registry/x:1": {Entrypoint: []string{"/x"}},
		}},
	}
}

// testOptionsWith is testOptions changed by change, if any.
func testOptionsWith(change func(*Options)) Options {
	opts := testOptions()
	if change != nil {
		change(&opts)
	}
	return opts
}

// injectYAML parses one resource, injects it, and returns the report and
// the resource encoded again (two-space indents).
func injectYAML(t *testing.T, src string, opts Options) (Report, string) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("test input does not parse: %v", err)
	}
	r := Resource(context.Background(), doc.Content[0], opts)
	out := encode(t, &doc)
	wantStrictOutput(t, []byte(src), []byte(out))
	return r, out
}

func encode(t *testing.T, n *yaml.Node) string {
	t.Helper()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// unchanged asserts that a resource that was not injected encodes exactly
// as its input did.
func unchanged(t *testing.T, src, got string) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	if want := encode(t, &doc); got != want {
		t.Errorf("the resource changed although it was not injected:\n%s\nwant:\n%s", got, want)
	}
}

// injectsTo asserts that src injects with opts to want, with the report
// wantReport.
func injectsTo(t *testing.T, src string, opts Options, wantReport, want string) {
	t.Helper()
	r, got := injectYAML(t, src, opts)
	if r.String() != wantReport {
		t.Errorf("report %q; want %q", r, wantReport)
	}
	if got != want {
		t.Errorf("injected:\n%s\nwant:\n%s", got, want)
	}
}

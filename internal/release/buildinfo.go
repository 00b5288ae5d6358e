package release

import (
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
)

// Module is one Go module a binary was linked from, as the binary's own
// build information records it (the module graph `go version -m` prints):
// the SBOMs and the provenance are made from it, so they describe what was
// linked rather than what go.mod allows.
type Module struct {
	Path, Version string
	// Sum is go.sum's h1: hash of the module's files; empty for a module
	// the build took from a directory (a replace by path).
	Sum string
}

// BuildInfo is what a Go binary records of its own build.
type BuildInfo struct {
	GoVersion string
	Main      string
	Deps      []Module
	// Settings are the build's flags and environment as the binary
	// records them: -trimpath, -tags, -ldflags, CGO_ENABLED, GOOS, GOARCH…
	Settings map[string]string
}

// ReadBuildInfo reads the build information embedded in the Go binary at path.
func ReadBuildInfo(path string) (BuildInfo, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return BuildInfo{}, fmt.Errorf("%s: %w (expected a Go binary)", path, err)
	}
	b := BuildInfo{GoVersion: info.GoVersion, Main: info.Main.Path, Settings: map[string]string{}}
	for _, dep := range info.Deps {
		b.Deps = append(b.Deps, linked(dep))
	}
	sort.Slice(b.Deps, func(i, j int) bool { return b.Deps[i].Path < b.Deps[j].Path })
	for _, s := range info.Settings {
		b.Settings[s.Key] = s.Value
	}
	return b, nil
}

// linked is the module the build used for dep: its replacement, if any.
func linked(dep *debug.Module) Module {
	if dep.Replace != nil {
		dep = dep.Replace
	}
	return Module{Path: dep.Path, Version: dep.Version, Sum: dep.Sum}
}

// PURL is the module's package URL (pkg:golang/PATH@VERSION), how SBOM
// tools and vulnerability databases name a Go module.
func (m Module) PURL() string {
	return "pkg:golang/" + m.Path + "@" + m.Version
}

// SumHex is the SHA-256 of go.sum's h1: hash in hex, or "" when the module
// has none: in-toto's dirHash digest is this hash, hex-encoded.
func (m Module) SumHex() string {
	b64, ok := strings.CutPrefix(m.Sum, "h1:")
	if !ok {
		return ""
	}
	sum, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(sum) != 32 {
		return ""
	}
	return hex.EncodeToString(sum)
}

package release

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImagesAreTheDockerfiles: a release's images hold the files, the
// entrypoint and the user of the Dockerfiles that local builds and the
// tests use, so the two cannot drift apart.
func TestImagesAreTheDockerfiles(t *testing.T) {
	for file, spec := range map[string]Spec{
		"Dockerfile.scratch":   TandemImage(nil),
		"Dockerfile.tandemctl": TandemctlImage(nil, nil),
	} {
		want := readDockerfile(t, filepath.Join("..", "..", file))
		var paths []string
		for _, f := range spec.Files {
			paths = append(paths, f.Path)
		}
		if !slices.Equal(paths, want.Files) || !slices.Equal(spec.Entrypoint, want.Entrypoint) || spec.User != want.User {
			t.Errorf("%s: files %v, entrypoint %v, user %q; the Dockerfile says %v, %v, %q",
				file, paths, spec.Entrypoint, spec.User, want.Files, want.Entrypoint, want.User)
		}
		// Build labels a release image with its license; the Dockerfile too.
		if want.Labels[AnnotationLicenses] != `"`+License+`"` {
			t.Errorf("%s: labels %v, want %s=%q", file, want.Labels, AnnotationLicenses, License)
		}
	}
}

// dockerfile is what a FROM scratch Dockerfile of COPY, USER and
// ENTRYPOINT says.
type dockerfile struct {
	Files      []string
	Entrypoint []string
	User       string
	Labels     map[string]string // as written, quotes and all
}

func readDockerfile(t *testing.T, path string) dockerfile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := dockerfile{Labels: map[string]string{}}
	for _, line := range strings.Split(string(data), "\n") {
		instruction, args, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch instruction {
		case "FROM":
			if args != "scratch" {
				t.Fatalf("%s: FROM %s, want scratch", path, args)
			}
		case "COPY":
			fields := strings.Fields(args)
			d.Files = append(d.Files, fields[len(fields)-1])
		case "USER":
			d.User = args
		case "LABEL":
			key, value, _ := strings.Cut(args, "=")
			d.Labels[key] = value
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(args), &d.Entrypoint); err != nil {
				t.Fatalf("%s: ENTRYPOINT %s: %v", path, args, err)
			}
		case "", "#":
		default:
			if !strings.HasPrefix(instruction, "#") {
				t.Fatalf("%s: %s: an instruction the release images do not follow", path, instruction)
			}
		}
	}
	return d
}

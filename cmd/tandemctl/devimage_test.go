package main

import (
	"strings"
	"testing"
)

func TestIsRelease(t *testing.T) {
	for v, want := range map[string]bool{
		"v1.2.3": true, "v0.1.0-rc.1": true, "v10.20.30": true,
		"dev": false, "16e7708": false, "v1.2.3-4-g16e7708": false, "v1.2.3-dirty": false,
		"v1.2.3-4-g16e7708-dirty": false, "1.2.3": false, "latest": false, "": false,
	} {
		if got := isRelease(v); got != want {
			t.Errorf("isRelease(%q) = %v; want %v", v, got, want)
		}
	}
}

// A development build has no published image: without --image, inject
// warns on every run, naming the flag; a release uses its own image.
func TestInjectDevelopmentImage(t *testing.T) {
	for _, tt := range []struct {
		version string
		args    []string
		image   string
		warns   bool
	}{
		{"16e7708", nil, "localhost/tandem:16e7708", true},
		{"v1.2.3-4-g16e7708", nil, "localhost/tandem:v1.2.3-4-g16e7708", true},
		{"16e7708", []string{"--image", "registry.example/tandem:mine"}, "registry.example/tandem:mine", false},
		{"v1.2.3", nil, "ghcr.io/tandem-sh/tandem:v1.2.3", false},
	} {
		saved := version
		version = tt.version
		out, stderr, code := run(t, plainJob, append([]string{"inject", "--resolve", "none"}, tt.args...)...)
		version = saved
		if code != 0 || !strings.Contains(out, "image: "+tt.image+"\n") {
			t.Errorf("%s %q: exit %d, want image %s in:\n%s", tt.version, tt.args, code, tt.image, out)
		}
		warning := "tandemctl: warning: --image not set: this development build's default, " + tt.image +
			", was never published (`make image` tags it locally); pass --image with an image that holds this build's tandem (or set TANDEMCTL_IMAGE)\n"
		if got := strings.HasPrefix(stderr, warning); got != tt.warns {
			t.Errorf("%s %q: stderr\n%s\nwant the warning %v", tt.version, tt.args, stderr, tt.warns)
		}
	}
	t.Setenv("TANDEMCTL_IMAGE", "registry.example/tandem:env")
	if _, stderr, _ := run(t, plainJob, "inject", "--resolve", "none"); strings.Contains(stderr, "warning: --image") {
		t.Errorf("TANDEMCTL_IMAGE set, yet: %s", stderr)
	}
}

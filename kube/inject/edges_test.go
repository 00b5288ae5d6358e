package inject

import (
	"strings"
	"testing"
)

// A mount at the directory tandem mounts its volume at collides however
// its path is spelled: the API server takes both mounts, and the two
// volumes would meet at one directory.
func TestMountCollisionAsDirectory(t *testing.T) {
	for _, tt := range []struct {
		at      string
		install Install
		want    string
	}{
		{"/run/tandem/", InitCopy, "at /run/tandem/ (that is /run/tandem)"},
		{"//run/tandem", InitCopy, "at //run/tandem (that is /run/tandem)"},
		{"/run/./tandem", InitCopy, "at /run/./tandem (that is /run/tandem)"},
		{"run/tandem", InitCopy, "at run/tandem (that is /run/tandem)"},
		{"/run/tandem-bin/", ImageVolume, "at /run/tandem-bin/ (that is /run/tandem-bin)"},
		{"/run/tandem-bin/", InitCopy, ""},
		{"/run/tandem/data", InitCopy, ""},
	} {
		src := strings.ReplaceAll(installPod, "mountPath: /data", "mountPath: "+tt.at)
		r, _ := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Install = tt.install }))
		switch {
		case tt.want == "" && r.Status != Injected:
			t.Errorf("%s (%s): %s; want injected", tt.at, tt.install, r)
		case tt.want != "" && (r.Status != Failed || !strings.Contains(r.Err.Error(), `container "side" already mounts something `+tt.want+", where tandem mounts its volume")):
			t.Errorf("%s (%s): %s; want failed: %s", tt.at, tt.install, r, tt.want)
		}
	}
}

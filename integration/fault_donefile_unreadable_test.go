package integration

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A done file tandem cannot read says why as a person reads it: what is
// there, its permissions in octal and its owner, and the user tandem runs
// as; never a bare file type such as "d---------".
func TestFaultDoneFileUnreadableSaysWhy(t *testing.T) {
	t.Parallel()
	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		done := inDir(tempDir(t), "done")
		mustDo(t, os.Mkdir(done, 0o700))
		mustDo(t, os.Chmod(done, 0o700))
		p := startTandem(t, procOptions{}, cmdArgs([]string{"sidecar", "--done-file", done}, helper("exit", "7"))...)
		wantUnreadable(t, p, "is a directory, not a regular file", "mode 0700", "owner uid "+strconv.Itoa(os.Geteuid()),
			"runs as uid "+strconv.Itoa(os.Geteuid()))
	})
	t.Run("no permission", func(t *testing.T) {
		t.Parallel()
		bins := faultUserBinaries(t)
		opts, done := bins.asNobody(t), filepath.Join(worldWritableDir(t), "done")
		mustDo(t, os.WriteFile(done, []byte(`{"version":1,"event":"done","exitCode":3}`+"\n"), 0o600))
		mustDo(t, os.Chmod(done, 0o600))
		p := startTandem(t, opts, cmdArgs([]string{"sidecar", "--done-file", done}, helper("exit", "7"))...)
		wantUnreadable(t, p, "permission denied", "mode 0600", "owner uid 0", "runs as uid 65534")
	})
}

func wantUnreadable(t *testing.T, p *tandemProc, want ...string) {
	t.Helper()
	warning := p.waitEvent("done-file-unreadable")
	p.waitEvent("not-started")
	for _, w := range want {
		if !strings.Contains(warning.Field("error"), w) {
			t.Errorf("done-file-unreadable error %q; want it to say %q", warning.Field("error"), w)
		}
	}
	if strings.Contains(warning.Field("error"), "---") {
		t.Errorf("done-file-unreadable error %q shows a bare mode string", warning.Field("error"))
	}
}

package cmdline

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// TestLongestNameFits: at the longest name accepted, everything tandem
// makes beside the file (its lifeline, their temporary names) can be made:
// AddedToName is not too small.
func TestLongestNameFits(t *testing.T) {
	path := filepath.Join(t.TempDir(), strings.Repeat("n", NameMax-AddedToName))
	h, err := lifeline.Hold(lifeline.Of(path), "host")
	if err != nil {
		t.Fatalf("lifeline of the longest name: %v", err)
	}
	defer h.Release()
	if err := statusfile.Write(path, statusfile.File{Event: statusfile.EventDone}); err != nil {
		t.Fatalf("done file of the longest name: %v", err)
	}
}

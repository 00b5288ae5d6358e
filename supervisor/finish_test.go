package supervisor

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-sh/tandem/internal/exitcode"
)

// The termination log says why tandem ended; Run's error carries the code.
func TestFinish(t *testing.T) {
	tests := []struct {
		out    outcome
		logged bool
	}{
		{outcome{code: 0, reason: "stopped"}, false},
		{outcome{code: 143, reason: "signaled", signal: "SIGTERM"}, true},
		{outcome{code: 125, reason: "error", err: errors.New("disk full")}, true},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "termination-log")
		cfg := testConfig(ModeSidecar)
		cfg.Name, cfg.TerminationLog = "proxy", path
		e := newEngine(cfg, newFakes(t).world(), nil)
		err := e.finish(tt.out)
		if exitcode.Of(err) != tt.out.code || exitcode.Logged(err) != tt.logged {
			t.Errorf("%+v: error %v (code %d, logged %v)", tt.out, err, exitcode.Of(err), exitcode.Logged(err))
		}
		data, readErr := os.ReadFile(path)
		if readErr != nil {
			t.Fatal(readErr)
		}
		var rec terminationRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Name != "proxy" || rec.Mode != "sidecar" || rec.ExitCode != tt.out.code || rec.Reason != tt.out.reason ||
			rec.Signal != tt.out.signal || (tt.out.err != nil) != (rec.Error != "") {
			t.Errorf("termination log %+v for %+v", rec, tt.out)
		}
	}
}

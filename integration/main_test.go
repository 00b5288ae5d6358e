package integration

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
)

// tandemBin is the binary under test: $TANDEM_BIN, else ../bin/tandem as
// `make build` leaves it, else one built here so `go test ./...` works alone.
var tandemBin string

// helperBin is this test binary, which runs helper programs (helpers_test.go).
var helperBin string

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == helperArg {
		os.Exit(runHelper(os.Args[2], os.Args[3:]))
	}
	restoreHangupAndInterrupt()
	code, err := setupAndRun(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func setupAndRun(m *testing.M) (int, error) {
	var err error
	if helperBin, err = os.Executable(); err != nil {
		return 0, err
	}
	tandemBin = os.Getenv("TANDEM_BIN")
	if tandemBin == "" {
		if abs, err := filepath.Abs("../bin/tandem"); err == nil && isExecutable(abs) {
			tandemBin = abs
		}
	}
	if tandemBin == "" {
		dir, err := os.MkdirTemp("", "tandem-bin-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		tandemBin = filepath.Join(dir, "tandem")
		build := exec.Command("go", "build", "-trimpath", "-o", tandemBin, "../cmd/tandem")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("build tandem: %v\n%s", err, out)
		}
	}
	defer func() {
		if otherUIDs.dir != "" {
			os.RemoveAll(otherUIDs.dir)
		}
	}()
	if err := copyForOtherUIDs(); err != nil {
		return 0, fmt.Errorf("copy the binaries for other uids: %w", err)
	}
	return m.Run(), nil
}

// restoreHangupAndInterrupt gives the programs the tests start SIGHUP and
// SIGINT with their default action when this run inherited them ignored
// (`nohup make test`, `make test &` in a script): tandem keeps ignores it
// inherits (TestRunInheritedIgnores), so the tests that send those signals
// would otherwise fail. Catching them here is what resets them: a child
// gets the default action of every signal its Go parent catches.
func restoreHangupAndInterrupt() {
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if signal.Ignored(sig) {
			signal.Notify(make(chan os.Signal, 1), sig)
		}
	}
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

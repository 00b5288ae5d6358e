// Command tandem is a container init (PID 1) that ties a Job's sidecar to its
// main container. See README.md.
package main

import (
	"fmt"
	"os"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor"
	"github.com/tandem-sh/tandem/supervisor/process"
)

// Set by the Makefile with -ldflags -X.
var (
	version = "dev"
	commit  = "unknown"
)

func main() {
	// The trampoline that clears an inherited signal mask before exec'ing
	// CMD; it must not parse flags or log.
	if len(os.Args) > 3 && os.Args[1] == process.TrampolineArg {
		os.Exit(process.ExecUnblocked(os.Args[2], os.Args[3:]))
	}
	if supervises(os.Args) {
		supervisor.CatchSignals() // overlaps the parsing (supervisor/catch.go)
	}
	os.Exit(exit(run(os.Args)))
}

// run is tandem's command line, parsed and done.
func run(argv []string) error {
	app := newApp()
	return app.Run(asRun(app.Flags, argv))
}

// supervises: the command line surely runs a command that supervises a CMD
// (`tandem run|sidecar|main ...` or `tandem -- CMD`). Global flags before the
// command are not looked through: such a command line registers its signals
// in Run, as late as any other.
func supervises(args []string) bool {
	if len(args) < 2 {
		return false
	}
	switch args[1] {
	case cmdline.CmdRun, cmdline.CmdSidecar, cmdline.CmdMain, "--":
		return true
	}
	return false
}

// exit is the one place where an error becomes tandem's exit code. An error
// tandem already logged (its "exiting" line) is not printed again.
func exit(err error) int {
	code := exitcode.Of(err)
	if err != nil && !exitcode.Logged(err) {
		// A usage error is one line (SPEC, Commands): it names the value and
		// what is accepted, or the help to read.
		fmt.Fprintf(os.Stderr, "tandem: %v\n", err)
	}
	return code
}

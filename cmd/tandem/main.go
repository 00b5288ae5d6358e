// Command tandem is a container init (PID 1) that ties a Job's sidecar to its
// main container. See README.md.
package main

import (
	"fmt"
	"os"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/catch"
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
	// Registering the forwarded signals takes milliseconds: begin it first,
	// so that it overlaps parsing (supervisor.Run waits for it before CMD
	// starts). Only when the command line surely supervises a CMD: any other
	// keeps the default actions (a SIGINT ends `tandem wait`).
	if supervises(os.Args) {
		catch.Begin()
	}
	os.Exit(exit(run(os.Args)))
}

// supervises: argv surely runs a command that supervises a CMD (`tandem
// run|sidecar|main ...` or `tandem -- CMD`), seen before it is parsed.
// Global flags before the command are not looked through: such a command
// line registers its signals in supervisor.Run, a little later.
func supervises(argv []string) bool {
	if len(argv) < 2 {
		return false
	}
	switch argv[1] {
	case cmdline.CmdRun, cmdline.CmdSidecar, cmdline.CmdMain, "--":
		return true
	}
	return false
}

// run is tandem's command line, parsed and done.
func run(argv []string) error {
	app := newApp()
	return app.Run(asRun(app.Flags, argv))
}

// exit is the one place where an error becomes tandem's exit code. An error
// tandem already logged (its "exiting" line) is not printed again.
func exit(err error) int {
	code := exitcode.Of(err)
	if err != nil && !exitcode.Logged(err) {
		// A usage error is one line (docs/commands.md): it names the value and
		// what is accepted, or the help to read.
		fmt.Fprintf(os.Stderr, "tandem: %v\n", err)
	}
	return code
}

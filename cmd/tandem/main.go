// Command tandem is a container init (PID 1) that ties a Job's sidecar to its
// main container. See README.md.
package main

import (
	"fmt"
	"os"

	"github.com/tandem-sh/tandem/internal/exitcode"
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
	os.Exit(exit(run(os.Args)))
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
		// A usage error is one line (SPEC, Commands): it names the value and
		// what is accepted, or the help to read.
		fmt.Fprintf(os.Stderr, "tandem: %v\n", err)
	}
	return code
}

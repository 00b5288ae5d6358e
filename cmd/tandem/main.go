// Command tandem is a container init (PID 1) that ties a Job's sidecar to its
// main container. See README.md and SPEC.md.
package main

import (
	"fmt"
	"os"

	"github.com/tandem-sh/tandem/supervisor"
)

// Set by the Makefile with -ldflags -X.
var (
	version = "dev"
	commit  = "unknown"
)

func main() {
	// The trampoline that clears an inherited signal mask before exec'ing
	// CMD; it must not parse flags or log.
	if len(os.Args) > 3 && os.Args[1] == supervisor.TrampolineArg {
		os.Exit(supervisor.ExecUnblocked(os.Args[2], os.Args[3:]))
	}
	err := newApp().Run(os.Args)
	code := exitCode(err)
	if err != nil && !isExitCodeOnly(err) {
		fmt.Fprintf(os.Stderr, "tandem: %v\n", err)
		if code == supervisor.ExitUsage {
			fmt.Fprintln(os.Stderr, "tandem: see `tandem --help` or `tandem COMMAND --help`")
		}
	}
	os.Exit(code)
}

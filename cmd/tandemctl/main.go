// Command tandemctl is for the people who run clusters: `tandemctl inject`
// wraps the containers of Kubernetes manifests in tandem. It never runs in a
// workload's container, so unlike tandem its size and dependencies are free.
// See docs/inject.md and docs/webhook.md.
package main

import (
	"fmt"
	"os"
)

// Set by the Makefile with -ldflags -X.
var (
	version = "dev"
	commit  = "unknown"
)

func main() {
	err := newApp(os.Stdin, os.Stdout, os.Stderr).Run(os.Args)
	code := exitCode(err)
	if err != nil && !isReported(err) {
		// One line: a usage error names what was wrong and what is accepted.
		fmt.Fprintf(os.Stderr, "tandemctl: %v\n", err)
	}
	os.Exit(code)
}

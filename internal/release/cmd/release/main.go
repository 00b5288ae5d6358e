// Command release writes the images, the krew plugin, the Helm chart, the
// SPDX SBOMs and the provenance of a release into dist/ and pushes the
// images and the chart (`make release`, `make publish`;
// docs/releases.md). It is build tooling:
// nothing of it is in tandem or tandemctl.
//
//	release images -dist DIR -version V -revision SHA -epoch SECONDS -ca-certs FILE
//	release krew -dist DIR -version V -url BASE -epoch SECONDS [-license FILE] [-go GO]
//	release chart -dist DIR -version V -epoch SECONDS [-chart DIR]
//	release publish -dist DIR -version V -registry HOST/PATH [-key KEY] [-go GO]
//	release spdx -version V -epoch SECONDS BINARY...
//	release cyclonedx-license SBOM...
//	release provenance -version V -revision SHA -builder URI -o OUT [-image ARCHIVE]... BINARY...
//	release predicate STATEMENT
//	release sign -key KEY -pub FILE FILE...
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

// run runs the command of args (without the program's name).
func run(ctx context.Context, args []string) error {
	return newApp().RunContext(ctx, append([]string{"release"}, args...))
}

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
	"errors"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

const commands = "images, krew, chart, publish, spdx, cyclonedx-license, provenance, predicate or sign"

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("expected a command: " + commands)
	}
	switch args[0] {
	case "images":
		return images(args[1:])
	case "krew":
		return krew(ctx, args[1:])
	case "chart":
		return chart(args[1:])
	case "publish":
		return publish(ctx, args[1:])
	case "spdx":
		return spdx(args[1:])
	case "cyclonedx-license":
		return cyclonedxLicense(args[1:])
	case "provenance":
		return provenance(args[1:])
	case "predicate":
		return predicate(args[1:])
	case "sign":
		return sign(ctx, args[1:])
	}
	return fmt.Errorf("unknown command %q: expected %s", args[0], commands)
}

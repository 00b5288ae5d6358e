// Command release writes the images, the krew plugin and the Helm chart of a
// release into dist/ and pushes the images and the chart (`make release`, `make publish`;
// docs/releases.md). It is build tooling:
// nothing of it is in tandem or tandemctl.
//
//	release images -dist DIR -version V -revision SHA -epoch SECONDS -ca-certs FILE
//	release krew -dist DIR -version V -url BASE -epoch SECONDS [-license FILE] [-go GO]
//	release chart -dist DIR -version V -epoch SECONDS [-chart DIR]
//	release publish -dist DIR -version V -registry HOST/PATH
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

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("expected a command: images, krew, chart or publish")
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
	}
	return fmt.Errorf("unknown command %q: expected images, krew, chart or publish", args[0])
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/tandem-sh/tandem/internal/release"
)

// sign signs each FILE into FILE.sigstore.json with the cosign key -key,
// and writes the key pair's public key to -pub: any file of a release
// (binary, SBOM, archive, chart) is signed the same way.
func sign(ctx context.Context, args []string) error {
	var c release.Cosign
	fs := flag.NewFlagSet("sign", flag.ContinueOnError)
	fs.StringVar(&c.Key, "key", "", "the cosign private key (its password in COSIGN_PASSWORD)")
	fs.StringVar(&c.Go, "go", "go", "the go command, to run cosign (a tool in go.mod)")
	pub := fs.String("pub", "", "where to write the public key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.Key == "" || *pub == "" || fs.NArg() == 0 {
		return errors.New("sign: expected -key KEY -pub FILE FILE...")
	}
	key, err := c.PublicKey(ctx)
	if err != nil {
		return err
	}
	for _, path := range fs.Args() {
		if err := c.SignBlob(ctx, path); err != nil {
			return err
		}
		fmt.Printf("%s%s\n", filepath.Base(path), release.BundleSuffix)
	}
	return writeFile(*pub, key)
}

package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/release"
)

var signCommand = &cli.Command{
	Name:      "sign",
	Usage:     "sign each FILE into FILE.sigstore.json",
	ArgsUsage: "FILE...",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "key", Usage: "the cosign private key (its password in COSIGN_PASSWORD)"},
		goFlag,
		&cli.StringFlag{Name: "pub", Usage: "where to write the public key"},
	},
	Action:       sign,
	OnUsageError: returnUsageError,
}

// sign signs each FILE into FILE.sigstore.json with the cosign key -key,
// and writes the key pair's public key to -pub: any file of a release
// (binary, SBOM, archive, chart) is signed the same way.
func sign(cliCtx *cli.Context) error {
	ctx := cliCtx.Context
	c := release.Cosign{Key: cliCtx.String("key"), Go: cliCtx.String("go")}
	pub := cliCtx.String("pub")
	if c.Key == "" || pub == "" || cliCtx.NArg() == 0 {
		return errors.New("sign: expected -key KEY -pub FILE FILE...")
	}
	key, err := c.PublicKey(ctx)
	if err != nil {
		return err
	}
	for _, path := range cliCtx.Args().Slice() {
		if err := c.SignBlob(ctx, path); err != nil {
			return err
		}
		fmt.Printf("%s%s\n", filepath.Base(path), release.BundleSuffix)
	}
	return writeFile(pub, key)
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/release"
)

// archs are the release's architectures, in the order of the index.
var archs = []string{"amd64", "arm64"}

const (
	// registry is where releases are published: tandemctl's default
	// --image is registry/tandem:VERSION.
	registry = "ghcr.io/tandem-sh"
)

type imagesFlags struct {
	dist, caCerts string
	meta          release.Meta
}

var imagesCommand = &cli.Command{
	Name:  "images",
	Usage: "write DIST/tandem-image.tar and DIST/tandemctl-image.tar",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "dist", Value: "dist", Usage: "the directory of the binaries, where the archives go"},
		&cli.StringFlag{Name: "ca-certs", Value: "/etc/ssl/certs/ca-certificates.crt", Usage: "the CA bundle of the tandemctl image"},
		versionFlag,
		&cli.StringFlag{Name: "revision", Usage: "the release's commit, in full"},
		epochFlag,
	},
	Action:       images,
	OnUsageError: returnUsageError,
}

// images writes DIST/tandem-image.tar and DIST/tandemctl-image.tar from the
// binaries DIST/{tandem,tandemctl}-linux-ARCH.
func images(cliCtx *cli.Context) error {
	f, err := readImagesFlags(cliCtx)
	if err != nil {
		return err
	}
	caCerts, err := os.ReadFile(f.caCerts)
	if err != nil {
		return fmt.Errorf("-ca-certs: %w (apt-get install ca-certificates)", err)
	}
	specs := map[string]func(bin []byte) release.Spec{
		"tandem":    release.TandemImage,
		"tandemctl": func(bin []byte) release.Spec { return release.TandemctlImage(bin, caCerts) },
	}
	for _, name := range []string{"tandem", "tandemctl"} {
		if err := writeImage(f.dist, name, specs[name], f.meta); err != nil {
			return err
		}
	}
	return nil
}

func readImagesFlags(cliCtx *cli.Context) (imagesFlags, error) {
	f := imagesFlags{dist: cliCtx.String("dist"), caCerts: cliCtx.String("ca-certs")}
	f.meta.Version, f.meta.Revision = cliCtx.String("version"), cliCtx.String("revision")
	epoch := cliCtx.Int64("epoch")
	if f.meta.Version == "" || f.meta.Revision == "" || epoch <= 0 {
		return f, errors.New("images: -version, -revision and -epoch are required")
	}
	f.meta.Source, f.meta.Created = release.Repository, time.Unix(epoch, 0).UTC()
	return f, nil
}

// writeImage builds NAME for every architecture and writes the archive
// DIST/NAME-image.tar; a failure leaves no archive behind.
func writeImage(dist, name string, spec func([]byte) release.Spec, meta release.Meta) error {
	var imgs []v1.Image
	for _, arch := range archs {
		bin, err := os.ReadFile(filepath.Join(dist, name+"-linux-"+arch))
		if err != nil {
			return err
		}
		img, err := release.Build(spec(bin), arch, meta)
		if err != nil {
			return fmt.Errorf("%s linux/%s: %w", name, arch, err)
		}
		imgs = append(imgs, img)
	}
	idx, err := release.Index(imgs, meta)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := release.WriteArchive(&buf, idx, registry+"/"+name+":"+meta.Version, meta); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	path := filepath.Join(dist, name+"-image.tar")
	if err := os.WriteFile(path+".tmp", buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

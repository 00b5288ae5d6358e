package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/release"
	"github.com/tandem-sh/tandem/internal/release/helmchart"
)

type publishFlags struct {
	dist, version, registry string
	cosign                  release.Cosign
}

var publishCommand = &cli.Command{
	Name:  "publish",
	Usage: "push the images and the chart, signed and attested with -key",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "dist", Value: "dist", Usage: "the directory of the archives (make release)"},
		&cli.StringFlag{Name: "version", Usage: "the release's version, the images' tag"},
		&cli.StringFlag{Name: "registry", Usage: "where to push, HOST/PATH: HOST/PATH/tandem:VERSION"},
		&cli.StringFlag{Name: "key", Usage: "a cosign private key: sign the images and the chart, and attest the images' SBOMs and provenance"},
		goFlag,
	},
	Action:       publish,
	OnUsageError: returnUsageError,
}

// publish pushes DIST/NAME-image.tar to REGISTRY/NAME:VERSION for tandem and
// tandemctl, then the chart to REGISTRY/charts/tandem:X.Y.Z, and prints each
// reference with its digest. With -key, it signs each pushed image and the
// chart, and attaches the images' SBOMs and provenance (DIST's) as
// attestations.
func publish(cliCtx *cli.Context) error {
	ctx := cliCtx.Context
	f := publishFlags{dist: cliCtx.String("dist"), version: cliCtx.String("version"), registry: cliCtx.String("registry"),
		cosign: release.Cosign{Key: cliCtx.String("key"), Go: cliCtx.String("go")}}
	if f.version == "" || f.registry == "" {
		return errors.New("publish: -version and -registry are required")
	}
	chartPath, err := chartArchive(f.dist, f.version)
	if err != nil {
		return err
	}
	var predicate string
	if f.cosign.Key != "" {
		if predicate, err = predicateFile(f.dist); err != nil {
			return err
		}
		defer os.Remove(predicate)
	}
	for _, image := range []string{"tandem", "tandemctl"} {
		if err := publishImage(ctx, &f, image, predicate); err != nil {
			return err
		}
	}
	pushed, err := helmchart.Push(chartPath, f.registry, f.version)
	if err != nil {
		return err
	}
	fmt.Printf("oci://%s@%s\n", pushed.Ref, pushed.Digest)
	if f.cosign.Key == "" {
		return nil
	}
	ref := helmchart.Ref(f.registry) + "@" + pushed.Digest
	if err := f.cosign.SignImage(ctx, ref); err != nil {
		return err
	}
	fmt.Printf("%s: signed\n", ref)
	return nil
}

// chartArchive is DIST/tandem-X.Y.Z.tgz, checked before any push: a
// release is pushed whole or not at all for want of a file.
func chartArchive(dist, version string) (string, error) {
	chartVersion, err := helmchart.Version(version)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dist, helmchart.Name+"-"+chartVersion+".tgz")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%w: make release VERSION=%s first", err, version)
	}
	return path, nil
}

func publishImage(ctx context.Context, f *publishFlags, image, predicate string) error {
	repo, err := name.NewRepository(f.registry + "/" + image)
	if err != nil {
		return fmt.Errorf("registry %q: %w (expected HOST/PATH, e.g. ghcr.io/tandem-sh)", f.registry, err)
	}
	if _, err := name.NewTag(repo.String() + ":" + f.version); err != nil {
		return fmt.Errorf("version %q: %w (expected a tag such as v1.2.3)", f.version, err)
	}
	digest, err := release.Publish(ctx, filepath.Join(f.dist, image+"-image.tar"), repo, f.version)
	if err != nil {
		return err
	}
	fmt.Printf("%s:%s@%s\n", repo, f.version, digest)
	if f.cosign.Key == "" {
		return nil
	}
	ref := repo.Digest(digest.String()).String()
	if err := f.cosign.SignPublished(ctx, ref, release.ImageAttestations(f.dist, image, predicate, archs)); err != nil {
		return err
	}
	fmt.Printf("%s: signed; SBOMs and provenance attested\n", ref)
	return nil
}

// predicateFile writes the predicate of DIST's provenance statement to a
// temporary file, for cosign attest.
func predicateFile(dist string) (string, error) {
	statement, err := os.ReadFile(filepath.Join(dist, release.ProvenanceFile))
	if err != nil {
		return "", fmt.Errorf("%w (make release writes it)", err)
	}
	predicate, err := release.ProvenancePredicate(statement)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp("", "tandem-provenance-*.json")
	if err != nil {
		return "", err
	}
	_, err = f.Write(predicate)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}

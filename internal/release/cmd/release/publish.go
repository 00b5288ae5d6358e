package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/tandem-sh/tandem/internal/release"
	"github.com/tandem-sh/tandem/internal/release/helmchart"
)

// publish pushes DIST/NAME-image.tar to REGISTRY/NAME:VERSION for tandem and
// tandemctl, then the chart to REGISTRY/charts/tandem:X.Y.Z, and prints each
// reference with its digest.
func publish(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	dist := fs.String("dist", "dist", "the directory of the archives (make release)")
	version := fs.String("version", "", "the release's version, the images' tag")
	registry := fs.String("registry", "", "where to push, HOST/PATH: HOST/PATH/tandem:VERSION")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || *registry == "" {
		return errors.New("publish: -version and -registry are required")
	}
	chartPath, err := chartArchive(*dist, *version)
	if err != nil {
		return err
	}
	for _, image := range []string{"tandem", "tandemctl"} {
		repo, err := name.NewRepository(*registry + "/" + image)
		if err != nil {
			return fmt.Errorf("registry %q: %w (expected HOST/PATH, e.g. ghcr.io/tandem-sh)", *registry, err)
		}
		if _, err := name.NewTag(repo.String() + ":" + *version); err != nil {
			return fmt.Errorf("version %q: %w (expected a tag such as v1.2.3)", *version, err)
		}
		digest, err := release.Publish(ctx, filepath.Join(*dist, image+"-image.tar"), repo, *version)
		if err != nil {
			return err
		}
		fmt.Printf("%s:%s@%s\n", repo, *version, digest)
	}
	pushed, err := helmchart.Push(chartPath, *registry, *version)
	if err != nil {
		return err
	}
	fmt.Printf("oci://%s@%s\n", pushed.Ref, pushed.Digest)
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

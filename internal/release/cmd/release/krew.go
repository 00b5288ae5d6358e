package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/release"
)

var krewCommand = &cli.Command{
	Name:  "krew",
	Usage: "write the krew plugin's archives and manifest into DIST",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "dist", Value: "dist", Usage: "the directory of the binaries, where the archives and the manifest go"},
		versionFlag,
		&cli.StringFlag{Name: "url", Usage: "where the release's files are downloaded from, the archives' base URL"},
		&cli.StringFlag{Name: "license", Usage: "a license file to put in each archive (none: no license)"},
		goFlag,
		epochFlag,
	},
	Action:       krew,
	OnUsageError: returnUsageError,
}

type krewFlags struct {
	dist, version, url, license, goCmd string
	created                            time.Time
}

// krew writes DIST/kubectl-tandem_VERSION_linux_ARCH.tar.gz from the
// binaries DIST/tandemctl-linux-ARCH and the krew manifest
// DIST/tandem.krew.yaml naming them under URL, once krew's own validator
// accepts it: an invalid manifest is never written.
func krew(cliCtx *cli.Context) error {
	ctx := cliCtx.Context
	f, err := readKrewFlags(cliCtx)
	if err != nil {
		return err
	}
	var license []byte
	if f.license != "" {
		if license, err = os.ReadFile(f.license); err != nil {
			return fmt.Errorf("-license: %w", err)
		}
	}
	var archives []release.KrewArchive
	for _, arch := range archs {
		a, err := writeKrewArchive(f, arch, license)
		if err != nil {
			return err
		}
		archives = append(archives, a)
	}
	manifest, err := release.MarshalKrewManifest(release.KrewManifest(f.version, archives))
	if err != nil {
		return err
	}
	if err := (release.KrewValidator{Go: f.goCmd}).Validate(ctx, manifest); err != nil {
		return fmt.Errorf("%s: %w", release.KrewManifestFile, err)
	}
	return writeFile(filepath.Join(f.dist, release.KrewManifestFile), manifest)
}

func readKrewFlags(cliCtx *cli.Context) (krewFlags, error) {
	f := krewFlags{dist: cliCtx.String("dist"), version: cliCtx.String("version"), url: cliCtx.String("url"),
		license: cliCtx.String("license"), goCmd: cliCtx.String("go")}
	epoch := cliCtx.Int64("epoch")
	if f.version == "" || f.url == "" || epoch <= 0 {
		return f, errors.New("krew: -version, -url and -epoch are required")
	}
	if !strings.HasPrefix(f.url, "https://") && !strings.HasPrefix(f.url, "http://") {
		return f, fmt.Errorf("krew: -url %q: expected an http(s) URL, the directory of the release's files", f.url)
	}
	f.url = strings.TrimSuffix(f.url, "/")
	f.created = time.Unix(epoch, 0).UTC()
	return f, nil
}

// writeKrewArchive writes linux/arch's archive into DIST and says where it
// will be downloaded from and its SHA-256.
func writeKrewArchive(f krewFlags, arch string, license []byte) (release.KrewArchive, error) {
	bin, err := os.ReadFile(filepath.Join(f.dist, "tandemctl-linux-"+arch))
	if err != nil {
		return release.KrewArchive{}, err
	}
	data, files, err := release.WriteKrewArchive(bin, license, f.created)
	if err != nil {
		return release.KrewArchive{}, fmt.Errorf("linux/%s: %w", arch, err)
	}
	name := release.KrewArchiveName(f.version, arch)
	if err := writeFile(filepath.Join(f.dist, name), data); err != nil {
		return release.KrewArchive{}, err
	}
	return release.KrewArchive{Arch: arch, URI: f.url + "/" + name, Sha256: release.Sha256Hex(data), Files: files}, nil
}

// writeFile writes data to path through a temporary file, so a failure
// leaves no partial file behind.
func writeFile(path string, data []byte) error {
	if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

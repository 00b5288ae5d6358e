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

var spdxCommand = &cli.Command{
	Name:         "spdx",
	Usage:        "write BINARY.spdx.json, the SPDX SBOM of each binary",
	ArgsUsage:    "BINARY...",
	Flags:        []cli.Flag{versionFlag, epochFlag},
	Action:       spdx,
	OnUsageError: returnUsageError,
}

// spdx writes BINARY.spdx.json, the SPDX 2.3 JSON SBOM, of each Go
// binary given.
func spdx(cliCtx *cli.Context) error {
	version, epoch := cliCtx.String("version"), cliCtx.Int64("epoch")
	if version == "" || epoch <= 0 || cliCtx.NArg() == 0 {
		return errors.New("spdx: expected -version V -epoch SECONDS BINARY...")
	}
	for _, path := range cliCtx.Args().Slice() {
		if err := writeSPDX(path, version, time.Unix(epoch, 0)); err != nil {
			return err
		}
	}
	return nil
}

func writeSPDX(path, version string, created time.Time) error {
	bin, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	info, err := release.ReadBuildInfo(path)
	if err != nil {
		return err
	}
	doc, err := release.SPDX(release.SPDXInput{
		Binary: bin, Info: info, Name: filepath.Base(path), Version: version, Created: created,
	})
	if err != nil {
		return err
	}
	return writeFile(path+".spdx.json", doc)
}

var cyclonedxLicenseCommand = &cli.Command{
	Name:            "cyclonedx-license",
	Usage:           "write the project's license into each CycloneDX SBOM, in place",
	ArgsUsage:       "SBOM...",
	SkipFlagParsing: true,
	Action:          func(cliCtx *cli.Context) error { return cyclonedxLicense(cliCtx.Args().Slice()) },
}

// cyclonedxLicense writes the project's license into each CycloneDX SBOM
// given (release.CycloneDXLicense), in place.
func cyclonedxLicense(args []string) error {
	if len(args) == 0 {
		return errors.New("cyclonedx-license: expected SBOM...")
	}
	for _, path := range args {
		bom, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bom, err = release.CycloneDXLicense(bom); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := writeFile(path, bom); err != nil {
			return err
		}
	}
	return nil
}

var provenanceCommand = &cli.Command{
	Name:      "provenance",
	Usage:     "write OUT, the SLSA provenance statement of the binaries and image archives",
	ArgsUsage: "BINARY...",
	Flags: []cli.Flag{
		versionFlag,
		&cli.StringFlag{Name: "revision", Usage: "the release's commit, in full"},
		&cli.StringFlag{Name: "builder", Usage: "who builds, a URI"},
		&cli.StringFlag{Name: "o", Usage: "the statement's file"},
		&cli.StringSliceFlag{Name: "image", Usage: "an image archive, NAME-image.tar (repeatable)"},
	},
	Action:       provenance,
	OnUsageError: returnUsageError,
}

// provenance writes OUT, the SLSA provenance statement of the binaries
// and image archives given: a binary's subject is its file name, an image
// archive's (NAME-image.tar) the index it holds, as REGISTRY/NAME.
func provenance(cliCtx *cli.Context) error {
	in := release.ProvenanceInput{Binaries: map[string]release.BuildInfo{}, Version: cliCtx.String("version"),
		Commit: cliCtx.String("revision"), Builder: cliCtx.String("builder")}
	out := cliCtx.String("o")
	if in.Version == "" || len(in.Commit) != 40 || in.Builder == "" || out == "" || cliCtx.NArg() == 0 {
		return errors.New("provenance: expected -version V -revision SHA(40 hex) -builder URI -o OUT [-image ARCHIVE]... BINARY...")
	}
	for _, path := range cliCtx.Args().Slice() {
		subject, info, err := binarySubject(path)
		if err != nil {
			return err
		}
		in.Subjects = append(in.Subjects, subject)
		in.Binaries[subject.Name] = info
	}
	for _, path := range cliCtx.StringSlice("image") {
		subject, err := imageSubject(path)
		if err != nil {
			return err
		}
		in.Subjects = append(in.Subjects, subject)
	}
	statement, err := release.Provenance(in)
	if err != nil {
		return err
	}
	return writeFile(out, statement)
}

func binarySubject(path string) (release.Subject, release.BuildInfo, error) {
	info, err := release.ReadBuildInfo(path)
	if err != nil {
		return release.Subject{}, info, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return release.Subject{}, info, err
	}
	return release.Subject{Name: filepath.Base(path), SHA256: release.Sha256Hex(data)}, info, nil
}

// imageSubject is the index in the archive NAME-image.tar, named
// REGISTRY/NAME as make publish pushes it (the digest is the same in any
// registry).
func imageSubject(path string) (release.Subject, error) {
	name, ok := strings.CutSuffix(filepath.Base(path), "-image.tar")
	if !ok || name == "" {
		return release.Subject{}, fmt.Errorf("-image %s: expected NAME-image.tar", path)
	}
	idx, cleanup, err := release.OpenArchive(path)
	if err != nil {
		return release.Subject{}, err
	}
	defer cleanup()
	digest, err := idx.Digest()
	if err != nil {
		return release.Subject{}, err
	}
	return release.Subject{Name: registry + "/" + name, SHA256: digest.Hex}, nil
}

var predicateCommand = &cli.Command{
	Name:            "predicate",
	Usage:           "print the predicate of a provenance statement",
	ArgsUsage:       "STATEMENT",
	SkipFlagParsing: true,
	Action:          func(cliCtx *cli.Context) error { return predicate(cliCtx.Args().Slice()) },
}

// predicate prints the predicate of the provenance statement FILE, what
// make publish attaches to the images with cosign attest.
func predicate(args []string) error {
	if len(args) != 1 {
		return errors.New("predicate: expected the provenance statement's file")
	}
	statement, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	p, err := release.ProvenancePredicate(statement)
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	_, err = os.Stdout.Write(p)
	return err
}

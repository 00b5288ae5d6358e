package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-sh/tandem/internal/release"
)

// spdx writes BINARY.spdx.json, the SPDX 2.3 JSON SBOM, of each Go
// binary given.
func spdx(args []string) error {
	fs := flag.NewFlagSet("spdx", flag.ContinueOnError)
	version := fs.String("version", "", "the release's version, vX.Y.Z")
	epoch := fs.Int64("epoch", 0, "the commit's time in seconds since 1970 (SOURCE_DATE_EPOCH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || *epoch <= 0 || fs.NArg() == 0 {
		return errors.New("spdx: expected -version V -epoch SECONDS BINARY...")
	}
	for _, path := range fs.Args() {
		if err := writeSPDX(path, *version, time.Unix(*epoch, 0)); err != nil {
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

// provenance writes OUT, the SLSA provenance statement of the binaries
// and image archives given: a binary's subject is its file name, an image
// archive's (NAME-image.tar) the index it holds, as REGISTRY/NAME.
func provenance(args []string) error {
	fs := flag.NewFlagSet("provenance", flag.ContinueOnError)
	in := release.ProvenanceInput{Binaries: map[string]release.BuildInfo{}}
	fs.StringVar(&in.Version, "version", "", "the release's version, vX.Y.Z")
	fs.StringVar(&in.Commit, "revision", "", "the release's commit, in full")
	fs.StringVar(&in.Builder, "builder", "", "who builds, a URI")
	out := fs.String("o", "", "the statement's file")
	var imgs multiFlag
	fs.Var(&imgs, "image", "an image archive, NAME-image.tar (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if in.Version == "" || len(in.Commit) != 40 || in.Builder == "" || *out == "" || fs.NArg() == 0 {
		return errors.New("provenance: expected -version V -revision SHA(40 hex) -builder URI -o OUT [-image ARCHIVE]... BINARY...")
	}
	for _, path := range fs.Args() {
		subject, info, err := binarySubject(path)
		if err != nil {
			return err
		}
		in.Subjects = append(in.Subjects, subject)
		in.Binaries[subject.Name] = info
	}
	for _, path := range imgs {
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
	return writeFile(*out, statement)
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

type multiFlag []string

func (m *multiFlag) String() string     { return fmt.Sprint(*m) }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

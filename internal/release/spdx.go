package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"time"

	spdxjson "github.com/spdx/tools-golang/json"
	"github.com/spdx/tools-golang/spdx/v2/common"
	spdx "github.com/spdx/tools-golang/spdx/v2/v2_3"
	"github.com/spdx/tools-golang/spdxlib"
)

// SPDXInput names a released binary for its SPDX SBOM.
type SPDXInput struct {
	// Binary is the file's content, Info its build information.
	Binary []byte
	Info   BuildInfo
	// Name is the file's name (tandem-linux-amd64), Version the release's.
	Name, Version string
	// Created is the document's creation time: the commit's, so two
	// builds of the commit write the same document.
	Created time.Time
}

const noAssertion = "NOASSERTION"

// SPDX is the SPDX 2.3 JSON SBOM of a released binary: the binary as the
// package the document describes, and every module it was linked from,
// the standard library included, as a package it depends on. The
// namespace is derived from the name, the version and the binary's
// SHA-256, so it is unique to the binary yet the same from every build.
func SPDX(in SPDXInput) ([]byte, error) {
	sum := sha256.Sum256(in.Binary)
	digest := hex.EncodeToString(sum[:])
	doc := &spdx.Document{
		SPDXVersion:       spdx.Version,
		DataLicense:       spdx.DataLicense,
		SPDXIdentifier:    "DOCUMENT",
		DocumentName:      in.Name,
		DocumentNamespace: fmt.Sprintf("%s/spdx/%s-%s-%s", Repository, in.Name, in.Version, digest),
		CreationInfo: &spdx.CreationInfo{
			Creators: []common.Creator{{CreatorType: "Tool", Creator: "tandem-release-" + in.Version}},
			Created:  in.Created.UTC().Format(time.RFC3339),
		},
	}
	root := &spdx.Package{
		PackageName:             in.Info.Main,
		PackageSPDXIdentifier:   common.ElementID("Package-" + spdxID(in.Name)),
		PackageVersion:          in.Version,
		PackageFileName:         in.Name,
		PackageDownloadLocation: Repository,
		PackageChecksums:        []common.Checksum{{Algorithm: common.SHA256, Value: digest}},
		PrimaryPackagePurpose:   "APPLICATION",
		PackageExternalReferences: []*spdx.PackageExternalReference{
			purlRef(Module{Path: in.Info.Main, Version: in.Version}.PURL())},
	}
	doc.Packages = []*spdx.Package{root}
	doc.Relationships = []*spdx.Relationship{relate("DOCUMENT", root.PackageSPDXIdentifier, common.TypeRelationshipDescribe)}
	std := Module{Path: "stdlib", Version: in.Info.GoVersion}
	for i, m := range append([]Module{std}, in.Info.Deps...) {
		p := modulePackage(m, i)
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, relate(root.PackageSPDXIdentifier, p.PackageSPDXIdentifier, common.TypeRelationshipDependsOn))
	}
	for _, p := range doc.Packages {
		p.PackageLicenseConcluded, p.PackageLicenseDeclared, p.PackageCopyrightText = noAssertion, noAssertion, noAssertion
	}
	// The binary is the project's: its LICENSE. The modules' licenses
	// stay NOASSERTION: nothing here reads their sources.
	root.PackageLicenseConcluded, root.PackageLicenseDeclared = License, License
	if err := spdxlib.ValidateDocument(doc); err != nil {
		return nil, fmt.Errorf("%s: SPDX document: %w", in.Name, err)
	}
	var buf bytes.Buffer
	if err := spdxjson.Write(doc, &buf, spdxjson.Indent("  ")); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// modulePackage is module m as the i-th package: i keeps the SPDX
// identifiers unique where two paths map to the same characters.
func modulePackage(m Module, i int) *spdx.Package {
	p := &spdx.Package{
		PackageName:               m.Path,
		PackageSPDXIdentifier:     common.ElementID(fmt.Sprintf("Package-%d-%s", i, spdxID(m.Path))),
		PackageVersion:            m.Version,
		PackageDownloadLocation:   noAssertion,
		PrimaryPackagePurpose:     "LIBRARY",
		PackageExternalReferences: []*spdx.PackageExternalReference{purlRef(m.PURL())},
	}
	if m.Sum != "" {
		p.PackageComment = "go.sum " + m.Sum
	}
	return p
}

func purlRef(purl string) *spdx.PackageExternalReference {
	return &spdx.PackageExternalReference{Category: "PACKAGE-MANAGER", RefType: "purl", Locator: purl}
}

func relate(a, b common.ElementID, kind string) *spdx.Relationship {
	return &spdx.Relationship{
		RefA:         common.DocElementID{ElementRefID: a},
		RefB:         common.DocElementID{ElementRefID: b},
		Relationship: kind,
	}
}

// notIDChar is what an SPDX identifier may not hold (letters, digits, '.'
// and '-' only).
var notIDChar = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

func spdxID(s string) string {
	return notIDChar.ReplaceAllString(filepath.ToSlash(s), "-")
}

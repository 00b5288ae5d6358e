// Package release builds tandem's release images and pushes them
// (docs/releases.md). An image is FROM scratch plus files: no base is pulled
// and nothing runs, so both architectures build on any machine. Every byte is a
// function of the inputs: file times are the commit's time, owners are 0:0
// unless said, entries are sorted, and gzip has no header time, so two clones
// of one commit write identical archives.
//
// The images go to dist/ as OCI image-layout archives (tar) whose index.json
// names one multi-arch index; Publish pushes that index and its images.
// Beside them: an SPDX SBOM of each binary (SPDX) and one in-toto SLSA
// provenance statement for every binary and image (Provenance), both made
// from the build information the binaries embed.
package release

// Repository is the project's source repository, as the images'
// annotations, the SBOMs and the provenance name it.
const Repository = "https://github.com/tandem-sh/tandem"

// License is the SPDX identifier of the project's license (LICENSE): the
// images' org.opencontainers.image.licenses, the SBOMs' license of the
// binary.
const License = "Apache-2.0"

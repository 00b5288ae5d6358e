// Package release tests what `make release` wrote (build tag release; .ci/run
// runs it on the dist/ of .ci/reproducible.sh): the binaries say the
// release's version, tandemctl injects the release's tandem image, and `make
// publish` pushes both multi-arch images to Debian's docker-registry on
// loopback, which serves them back with the archives' digests, platforms,
// annotations and binaries. The krew manifest names each platform's
// archive with its SHA-256 (as SHA256SUMS does), the archive holds that
// platform's tandemctl where bin says, and krew's own CLI installs the
// plugin from the manifest and this machine's archive into a scratch
// KREW_ROOT, where kubectl-tandem runs (and refuses the other
// architecture's archive, whose SHA-256 differs).
//
// Signing, with a cosign key pair the test makes: `make sign` signs a copy
// of dist/ and `cosign verify-blob` accepts every file and refuses a
// binary changed by one byte; `make publish COSIGN_KEY=…` signs and
// attests both images, and cosign verify and verify-attestation (SPDX,
// CycloneDX, SLSA provenance naming the commit) accept them in the
// registry, with the commands docs/releases.md gives; another image pushed
// under the release's tag, and another key, fail them. The provenance in
// dist/ names every binary and image by digest.
//
// TANDEM_DIST names the dist/ directory; without it, or without
// docker-registry, the tests skip, unless TANDEM_RELEASE_REQUIRED is set.
package release

// Package release tests what `make release` wrote (build tag release; .ci/run
// runs it on the dist/ of .ci/reproducible.sh): the binaries say the
// release's version, tandemctl injects the release's tandem image, and `make
// publish` pushes both multi-arch images to Debian's docker-registry on
// loopback, which serves them back with the archives' digests, platforms,
// annotations and binaries.
//
// TANDEM_DIST names the dist/ directory; without it, or without
// docker-registry, the tests skip, unless TANDEM_RELEASE_REQUIRED is set.
package release

// Package doclinks checks the relative links of the project's Markdown: every
// linked file or directory exists, and every #anchor names a heading of its
// target as GitHub spells it. `make test` runs it over README.md, SECURITY.md,
// CONTRIBUTING.md, CHANGELOG.md and docs/*.md (links_test.go), so a renamed section or a moved page fails the build
// instead of a reader.
//
// It parses with goldmark (CommonMark with GitHub's extensions), not with
// regular expressions: a link-like text in a code block or a code span is no
// link, a reference-style link is one, and a heading's anchor comes from its
// rendered text (code spans included, emphasis markers not). Links with a
// scheme (https:, mailto:) are not followed: the test runs offline.
package doclinks

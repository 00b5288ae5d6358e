// Package manifest reads streams of Kubernetes manifests (YAML or JSON,
// several documents per file, directories) into YAML node trees, and
// writes them back: a document that was not changed is written byte for
// byte as it was read; a changed one is encoded again in the file's own
// format, indentation and sequence style.
package manifest

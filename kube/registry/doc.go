// Package registry reads images' ENTRYPOINT, CMD and STOPSIGNAL from their
// registries with go-containerregistry, for the platform of the nodes.
//
// read.go reads one image's config; Resolver (resolver.go) wraps it for
// `tandemctl inject`, once per image per run with the user's credentials;
// DigestCache (digest.go) for the webhook, by digest with each caller's
// credentials.
package registry

package release

// The images of a release, as Dockerfile.scratch and Dockerfile.tandemctl
// describe them for local builds (images_test.go holds the two together).

// TandemImage is tandem's image: the binary alone, as the entrypoint, or
// for an init container that copies it out (`/tandem install DIR`).
func TandemImage(tandem []byte) Spec {
	return Spec{
		Files:      []File{{Path: "/tandem", Mode: 0o755, Data: tandem}},
		Entrypoint: []string{"/tandem"},
	}
}

// TandemctlImage is tandemctl's image: the binary and the CA certificates
// it needs to read images' configs from registries over TLS, run as a
// non-root user (the webhook's Deployment, examples/webhook/).
func TandemctlImage(tandemctl, caCerts []byte) Spec {
	return Spec{
		Files: []File{
			{Path: "/tandemctl", Mode: 0o755, Data: tandemctl},
			{Path: "/etc/ssl/certs/ca-certificates.crt", Mode: 0o644, Data: caCerts},
		},
		Entrypoint: []string{"/tandemctl"},
		User:       "65532:65532",
	}
}

package release

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Cosign signs a release's files and images with a cosign key pair, by
// running the cosign that go.mod pins (a tool there), the command users
// verify with. No transparency log and no Sigstore service is reached:
// the release is signed where it is built, possibly offline, and verified
// against the public key (docs/releases.md says how a maintainer signs
// keyless instead, from a runner that reaches Sigstore).
type Cosign struct {
	Go string // the go command; "" is go
	// Key is the private key's file (cosign generate-key-pair); its
	// password comes from COSIGN_PASSWORD, as cosign reads it.
	Key string
	// bin is the cosign `go tool cosign` runs, built once and found with
	// `go tool -n cosign`: go tool itself takes seconds a call to check
	// that its build is current, and a release calls cosign dozens of times.
	bin string
}

// offline are the flags of every signing command: the key given, no
// signing configuration fetched from Sigstore's TUF repository, nothing
// uploaded to Rekor.
var offline = []string{"--use-signing-config=false", "--tlog-upload=false", "--yes"}

// SignBlob signs the file at path into path.sigstore.json, a Sigstore
// bundle (`cosign verify-blob --bundle` checks it).
func (c *Cosign) SignBlob(ctx context.Context, path string) error {
	return c.run(ctx, "sign-blob", "--bundle", path+BundleSuffix, path)
}

// BundleSuffix is what a blob's signature bundle adds to its name.
const BundleSuffix = ".sigstore.json"

// SignImage signs the image ref (REPO@DIGEST) and, for an index, each of
// its images: a user pulling one architecture by digest finds it signed.
func (c *Cosign) SignImage(ctx context.Context, ref string) error {
	return c.run(ctx, "sign", "--recursive", ref)
}

// Attest attaches the predicate in the file predicate to the image ref as
// a signed in-toto attestation of cosign's predicate type kind (spdxjson,
// cyclonedx, slsaprovenance1).
func (c *Cosign) Attest(ctx context.Context, ref, kind, predicate string) error {
	return c.run(ctx, "attest", "--type", kind, "--predicate", predicate, ref)
}

// PublicKey is the key pair's public key, PEM.
func (c *Cosign) PublicKey(ctx context.Context) ([]byte, error) {
	return c.output(ctx, "public-key", "--key", c.Key)
}

// ImageAttestations are the files make publish attaches to the image
// NAME: its provenance's predicate (slsaprovenance1), and each
// architecture's SPDX (spdxjson) and CycloneDX (cyclonedx) SBOM of the
// binary the image holds, all in dist.
func ImageAttestations(dist, name, provenancePredicate string, archs []string) [][2]string {
	out := [][2]string{{"slsaprovenance1", provenancePredicate}}
	for _, arch := range archs {
		bin := filepath.Join(dist, name+"-linux-"+arch)
		out = append(out, [2]string{"spdxjson", bin + ".spdx.json"}, [2]string{"cyclonedx", bin + ".cdx.json"})
	}
	return out
}

// SignPublished signs the pushed image ref (REPO@DIGEST) and attaches
// attestations, each a predicate type and its file.
func (c *Cosign) SignPublished(ctx context.Context, ref string, attestations [][2]string) error {
	if err := c.SignImage(ctx, ref); err != nil {
		return err
	}
	for _, a := range attestations {
		if err := c.Attest(ctx, ref, a[0], a[1]); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cosign) run(ctx context.Context, command string, args ...string) error {
	full := append([]string{command, "--key", c.Key}, offline...)
	_, err := c.output(ctx, append(full, args...)...)
	return err
}

func (c *Cosign) output(ctx context.Context, args ...string) ([]byte, error) {
	if c.bin == "" {
		goCmd := c.Go
		if goCmd == "" {
			goCmd = "go"
		}
		out, err := exec.CommandContext(ctx, goCmd, "tool", "-n", "cosign").Output()
		if err != nil {
			return nil, fmt.Errorf("go tool -n cosign (cosign is a tool in go.mod): %w", err)
		}
		c.bin = strings.TrimSpace(string(out))
	}
	cmd := exec.CommandContext(ctx, c.bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cosign %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

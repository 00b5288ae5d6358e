//go:build release

package release

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/tandem-sh/tandem/internal/release"
)

// The verification commands of docs/releases.md, word for word after
// `cosign` (here the cosign `go tool cosign` runs, the version go.mod pins).
var (
	verifyImage       = []string{"verify", "--key", "cosign.pub", "--insecure-ignore-tlog"}
	verifyAttestation = []string{"verify-attestation", "--key", "cosign.pub", "--insecure-ignore-tlog", "--type"}
	verifyBlob        = []string{"verify-blob", "--key", "cosign.pub", "--insecure-ignore-tlog", "--bundle"}
)

const cosignPassword = "release-test"

// signer is a key pair made for the test and a copy of the release's
// dist/ to sign with it (the shared dist/ stays unsigned).
type signer struct {
	root, dir, dist, key, bin string
}

func newSigner(t *testing.T) signer {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	s := signer{root: root, dir: t.TempDir(), bin: cosignBin(t, root)}
	s.dist, s.key = filepath.Join(s.dir, "dist"), filepath.Join(s.dir, "cosign.key")
	if out, err := exec.Command("cp", "-a", distDir(t), s.dist).CombinedOutput(); err != nil {
		t.Fatalf("copy dist/: %v\n%s", err, out)
	}
	s.cosign(t, "generate-key-pair", "--output-key-prefix", filepath.Join(s.dir, "cosign"))
	return s
}

// command is `cosign ARGS` run in dir (the public key there is
// cosign.pub), with the key's password in the environment.
func (s signer) command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(s.bin, args...)
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD="+cosignPassword)
	cmd.Dir = dir
	return cmd
}

// cosignBin is the cosign `go tool cosign` runs, as the Makefile builds
// it (CGO_ENABLED=0: the same build, not a second one); found once, since
// go tool takes seconds a call to check that its build is current.
func cosignBin(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("go", "tool", "-n", "cosign")
	cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool -n cosign: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// cosign runs cosign in s.dir and returns its stdout; a failure fails the test.
func (s signer) cosign(t *testing.T, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := s.command(s.dir, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cosign %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// refuses runs cosign in dir and fails the test unless cosign ran and
// refused (its "Error: " line: not a failure to start it).
func (s signer) refuses(t *testing.T, dir string, args ...string) {
	t.Helper()
	out, err := s.command(dir, args...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Error: ") {
		t.Errorf("cosign %s: %v, want cosign's refusal:\n%s", strings.Join(args, " "), err, out)
		return
	}
	t.Logf("cosign %s refuses, as it should: %s", args[0], lastLine(string(out)))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func (s signer) make(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory", "-C", s.root, "COSIGN_KEY=" + s.key}, args...)...)
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD="+cosignPassword)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestSignedFilesVerify: `make sign` (what make release does with a key)
// signs every file SHA256SUMS lists and SHA256SUMS; cosign verify-blob
// with the public key it wrote accepts each, and refuses a binary changed
// by one byte (the control) or checked against another key pair.
func TestSignedFilesVerify(t *testing.T) {
	s := newSigner(t)
	t.Log(s.make(t, "sign", "DIST="+s.dist))
	sums, err := os.ReadFile(filepath.Join(s.dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"SHA256SUMS"}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		files = append(files, strings.Fields(line)[1])
	}
	for _, f := range files {
		s.verifies(t, s.dist, f)
	}
	bin := "tandem-linux-amd64"
	data, err := os.ReadFile(filepath.Join(s.dist, bin))
	if err != nil {
		t.Fatal(err)
	}
	tampered := t.TempDir()
	copyFile(t, filepath.Join(s.dist, "cosign.pub"), filepath.Join(tampered, "cosign.pub"))
	copyFile(t, filepath.Join(s.dist, bin+release.BundleSuffix), filepath.Join(tampered, bin+release.BundleSuffix))
	data[len(data)/2] ^= 1
	if err := os.WriteFile(filepath.Join(tampered, bin), data, 0o755); err != nil {
		t.Fatal(err)
	}
	s.refuses(t, tampered, append(verifyBlob, bin+release.BundleSuffix, bin)...)
	other := t.TempDir()
	s.cosign(t, "generate-key-pair", "--output-key-prefix", filepath.Join(other, "cosign"))
	copyFile(t, filepath.Join(s.dist, bin), filepath.Join(other, bin))
	copyFile(t, filepath.Join(s.dist, bin+release.BundleSuffix), filepath.Join(other, bin+release.BundleSuffix))
	s.refuses(t, other, append(verifyBlob, bin+release.BundleSuffix, bin)...)
}

// verifies runs docs/releases.md's verify-blob of file in dir.
func (s signer) verifies(t *testing.T, dir, file string) {
	t.Helper()
	if out, err := s.command(dir, append(verifyBlob, file+release.BundleSuffix, file)...).CombinedOutput(); err != nil {
		t.Errorf("verify-blob %s: %v\n%s", file, err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProvenanceNamesEveryArtifact: dist/'s provenance statement names
// each binary by its SHA-256 and each image by its index's digest, and
// the commit the archives' annotations name.
func TestProvenanceNamesEveryArtifact(t *testing.T) {
	dist := distDir(t)
	data, err := os.ReadFile(filepath.Join(dist, release.ProvenanceFile))
	if err != nil {
		t.Fatal(err)
	}
	st := statement(t, data)
	want := map[string]string{}
	for _, image := range images {
		idx := archive(t, dist, image)
		digest, _ := idx.Digest()
		want["ghcr.io/tandem-sh/"+image] = digest.Hex
		for _, arch := range []string{"amd64", "arm64"} {
			bin, err := os.ReadFile(filepath.Join(dist, image+"-linux-"+arch))
			if err != nil {
				t.Fatal(err)
			}
			want[image+"-linux-"+arch] = release.Sha256Hex(bin)
		}
	}
	got := map[string]string{}
	for _, s := range st.Subject {
		got[s.Name] = s.Digest["sha256"]
	}
	if !equalMaps(got, want) {
		t.Errorf("subjects %v, want %v", got, want)
	}
	commit := annotations(t, archive(t, dist, "tandem"))["org.opencontainers.image.revision"]
	if c := st.commit(); commit == "" || c != commit {
		t.Errorf("provenance names the commit %q, the images %q", c, commit)
	}
}

// inToto is what the tests read of an in-toto statement.
type inToto struct {
	PredicateType string `json:"predicateType"`
	Subject       []struct {
		Name   string            `json:"name"`
		Digest map[string]string `json:"digest"`
	} `json:"subject"`
	Predicate struct {
		Name            string `json:"name"` // an SPDX document's
		BuildDefinition struct {
			ResolvedDependencies []struct {
				URI    string            `json:"uri"`
				Digest map[string]string `json:"digest"`
			} `json:"resolvedDependencies"`
		} `json:"buildDefinition"`
	} `json:"predicate"`
}

// commit is the provenance's first resolved dependency's git commit.
func (s inToto) commit() string {
	if deps := s.Predicate.BuildDefinition.ResolvedDependencies; len(deps) > 0 {
		return deps[0].Digest["gitCommit"]
	}
	return ""
}

func statement(t *testing.T, data []byte) inToto {
	t.Helper()
	var st inToto
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("in-toto statement: %v\n%.300s", err, data)
	}
	return st
}

// attestations are the statements cosign verify-attestation printed, one
// DSSE envelope a line.
func attestations(t *testing.T, out string) []inToto {
	t.Helper()
	var sts []inToto
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var env struct {
			Payload string `json:"payload"`
		}
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatalf("verify-attestation printed %v: %.300s", err, line)
		}
		payload, err := base64.StdEncoding.DecodeString(env.Payload)
		if err != nil {
			t.Fatal(err)
		}
		sts = append(sts, statement(t, payload))
	}
	return sts
}

// pushRandom pushes an image that is not the release's as ref.
func pushRandom(t *testing.T, ref string) {
	t.Helper()
	img, err := random.Image(256, 1)
	if err != nil {
		t.Fatal(err)
	}
	tag, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(tag, img); err != nil {
		t.Fatal(err)
	}
}

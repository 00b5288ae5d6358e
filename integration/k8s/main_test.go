//go:build k8s

package k8s

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The images images.sh imports into the cluster; nothing is pulled.
const (
	tandemImage = "localhost/tandem-k8s/tandem:test"
	testImage   = "localhost/tandem-k8s/tools:test"
)

var (
	// skipReason is set when there is no cluster to play on.
	skipReason string
	repoRoot   string
	kubectlBin string
	// serverVersion is the API server's release (v1.37.2), serverMinor its
	// minor: what a test that depends on the release asks.
	serverVersion string
	serverMinor   int
)

// nativeSidecarsSince is the first minor release whose API server and
// kubelet run native sidecars (an init container with restartPolicy
// Always) by default: the SidecarContainers gate is on from 1.29.
const nativeSidecarsSince = 29

func TestMain(m *testing.M) {
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, "k8s:", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := kit.CheckPlayed(repoRoot, skipReason != ""); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, "k8s:", err)
		code = 1
	}
	os.Exit(code)
}

func setup() error {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		return err
	}
	kubectlBin = os.Getenv("TANDEM_K8S_KUBECTL")
	if kubectlBin == "" {
		// Not /usr/bin/kubectl: on some machines a cloud SDK's wrapper.
		// The release's own, as up.sh does (env.sh's default).
		version := os.Getenv("TANDEM_K8S_VERSION")
		if version == "" {
			version = "v1.37.2"
		}
		home, _ := os.UserHomeDir()
		kubectlBin = filepath.Join(home, ".cache", "tandem-k8s", version, "kubectl")
	}
	if os.Getenv("KUBECONFIG") == "" {
		os.Setenv("KUBECONFIG", "/var/lib/tandem-k8s/pki/admin.kubeconfig")
	}
	if skipReason = clusterMissing(); skipReason != "" {
		if os.Getenv("TANDEM_K8S_REQUIRED") != "" {
			return fmt.Errorf("TANDEM_K8S_REQUIRED is set, but %s", skipReason)
		}
		fmt.Fprintln(os.Stderr, "k8s: skipping every test:", skipReason)
		return nil
	}
	if serverVersion, serverMinor, err = apiServerVersion(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "k8s: the API server is Kubernetes %s\n", serverVersion)
	images := exec.Command(filepath.Join(repoRoot, "integration", "k8s", "images.sh"), tandemBinary())
	images.Stdout, images.Stderr = os.Stderr, os.Stderr
	if err := images.Run(); err != nil {
		return fmt.Errorf("images.sh: %w", err)
	}
	return nil
}

func clusterMissing() string {
	const how = "(integration/k8s/up.sh brings one up; make e2e-k8s does it all)"
	if _, err := os.Stat(kubectlBin); err != nil {
		return fmt.Sprintf("no kubectl at %s %s", kubectlBin, how)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, kubectlBin, "get", "--raw", "/readyz").CombinedOutput(); err != nil {
		return fmt.Sprintf("no cluster answers at KUBECONFIG=%s: %v: %s %s", os.Getenv("KUBECONFIG"), err, out, how)
	}
	return ""
}

// apiServerVersion asks the API server its release and minor.
func apiServerVersion() (string, int, error) {
	out, err := exec.Command(kubectlBin, "get", "--raw", "/version").Output()
	if err != nil {
		return "", 0, fmt.Errorf("kubectl get --raw /version: %w", err)
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
		Minor      string `json:"minor"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return "", 0, fmt.Errorf("the API server's /version %s: %w", out, err)
	}
	// Some distributions write "27+".
	minor, err := strconv.Atoi(strings.TrimSuffix(v.Minor, "+"))
	if err != nil {
		return "", 0, fmt.Errorf("the API server's minor version %q: %w", v.Minor, err)
	}
	return v.GitVersion, minor, nil
}

// requireNativeSidecars skips t on a release that has no native sidecars,
// naming it; everywhere else t runs. Only for what the release truly lacks:
// a test that holds in classic mode runs on every release.
func requireNativeSidecars(t *testing.T) {
	t.Helper()
	requireCluster(t)
	if serverMinor < nativeSidecarsSince {
		t.Skipf("Kubernetes %s has no native sidecars (on by default from 1.%d): classic mode is the only way there",
			serverVersion, nativeSidecarsSince)
	}
}

// tandemBinary is $TANDEM_BIN (make e2e-k8s), else bin/tandem.
func tandemBinary() string {
	if bin := os.Getenv("TANDEM_BIN"); bin != "" {
		return bin
	}
	return filepath.Join(repoRoot, "bin", "tandem")
}

func requireCluster(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

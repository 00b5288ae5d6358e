//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkerKubeconfig writes a kubeconfig whose only rights are those of the
// ClusterRole tandem-check (examples/webhook/check-rbac.yaml): the token
// of a ServiceAccount of n, bound to it alone. The binding goes when the
// test ends.
func checkerKubeconfig(t *testing.T, n *namespace) string {
	t.Helper()
	n.serviceAccount("checker")
	binding := n.name + "-check"
	n.run(nil, "create", "clusterrolebinding", binding, "--clusterrole=tandem-check", "--serviceaccount="+n.name+":checker")
	t.Cleanup(func() {
		ctx, cancel := contextFor(kubectlTimeout)
		defer cancel()
		if _, err := kubectl(ctx, nil, "delete", "clusterrolebinding", binding); err != nil {
			t.Error(err)
		}
	})
	token := strings.TrimSpace(n.run(nil, "create", "token", "checker", "--duration=1h"))
	cluster := func(field string) string {
		out, err := kubectl(context.Background(), nil, "config", "view", "--minify", "--flatten", "-o", "jsonpath={.clusters[0].cluster."+field+"}")
		if err != nil || out == "" {
			t.Fatalf("the suite's kubeconfig has no %s: %v", field, err)
		}
		return out
	}
	config := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
  - name: cluster
    cluster: {server: %q, certificate-authority-data: %s}
users:
  - name: checker
    user: {token: %s}
contexts:
  - name: checker
    context: {cluster: cluster, user: checker}
current-context: checker
`, cluster("server"), cluster("certificate-authority-data"), token)
	path := filepath.Join(t.TempDir(), "checker.kubeconfig")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

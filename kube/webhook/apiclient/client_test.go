package apiclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With no kubeconfig given, outside a cluster, and no ~/.kube/config, the
// error names each source tried in the order the docs give, and the fix;
// nothing of client-go's own advice (KUBERNETES_MASTER) reaches the user.
func TestRESTConfigNamesTheSourcesTried(t *testing.T) {
	home := t.TempDir()
	saved := homeKubeconfig
	homeKubeconfig = filepath.Join(home, ".kube", "config")
	t.Cleanup(func() { homeKubeconfig = saved })
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	_, err := RESTConfig("")
	if err == nil {
		t.Fatal("RESTConfig found an API server with no source")
	}
	msg := err.Error()
	order := []string{"--kubeconfig, TANDEMCTL_KUBECONFIG or KUBECONFIG", "not in a cluster", filepath.Join(home, ".kube", "config"), "give --kubeconfig FILE"}
	at := 0
	for _, want := range order {
		i := strings.Index(msg[at:], want)
		if i < 0 {
			t.Fatalf("error %q does not name %q after what came before", msg, want)
		}
		at += i + len(want)
	}
	if strings.Contains(msg, "KUBERNETES_MASTER") {
		t.Errorf("error %q passes on client-go's advice", msg)
	}

	missing := filepath.Join(home, "nope")
	if _, err := RESTConfig(missing); err == nil || !strings.Contains(err.Error(), `kubeconfig "`+missing+`": `) {
		t.Errorf("a kubeconfig that is not there: %v", err)
	}
	_ = os.Remove(missing)
}

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// heldPod's main container ended an hour ago; its sidecar runs on.
func heldPod() corev1.Pod {
	ended := metav1.NewTime(time.Now().Add(-time.Hour))
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "jobs", Name: "export-x1"},
		Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "export"}, {Name: "proxy"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "export", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: ended}}},
			{Name: "proxy", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ended}}},
		}},
	}
}

// kubeconfigFor plays an API server whose cluster holds pods and no other
// object, and writes a kubeconfig that reaches it.
func kubeconfigFor(t *testing.T, pods ...corev1.Pod) string {
	t.Helper()
	lists := map[string]any{
		"/api/v1/pods":                 corev1.PodList{Items: pods},
		"/api/v1/namespaces/jobs/pods": corev1.PodList{Items: pods},
		"/api/v1/namespaces":           corev1.NamespaceList{Items: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "jobs"}}}},
		"/api/v1/nodes":                corev1.NodeList{},
		"/apis/batch/v1/jobs": struct {
			Items []any `json:"items"`
		}{},
		"/apis/batch/v1/namespaces/jobs/jobs": struct {
			Items []any `json:"items"`
		}{},
		"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations": struct {
			Items []any `json:"items"`
		}{},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ua := r.UserAgent(); ua != checkUserAgent {
			t.Errorf("User-Agent %q; want %q", ua, checkUserAgent)
		}
		list, ok := lists[r.URL.Path]
		if !ok || r.Method != http.MethodGet {
			t.Errorf("unexpected %s %s", r.Method, r.URL)
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(list)
	}))
	t.Cleanup(srv.Close)
	return writeKubeconfig(t, srv.URL)
}

func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	config := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: %q}}]
users: [{name: test, user: {}}]
contexts: [{name: test, context: {cluster: test, user: test}}]
current-context: test
`, server)
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckExitCodes(t *testing.T) {
	clean, held := kubeconfigFor(t), kubeconfigFor(t, heldPod())
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"nothing wrong", []string{"--kubeconfig", clean}, 0, "no problems found (checked 0 pods and 0 webhooks of tandem)\n", ""},
		{"a held pod", []string{"--kubeconfig", held}, 1, "ERROR held-pod jobs/export-x1\n  held for 1h0m", ""},
		{"who holds it", []string{"--kubeconfig", held}, 1, `main container "export" ended, "proxy" still runs, so the pod cannot complete`, ""},
		{"its fix", []string{"--kubeconfig", held, "-n", "jobs"}, 1, "fix: run tandemctl inject --sidecar proxy on the manifest of pod export-x1", ""},
		{"as JSON", []string{"--kubeconfig", held, "-o", "json"}, 1, `"check": "held-pod",`, ""},
		{"held for less than --stuck-after", []string{"--kubeconfig", held, "--stuck-after", "2h", "-A"}, 0, "no problems found", ""},
		{"a namespace the cluster does not have", []string{"--kubeconfig", clean, "-n", "nosuchnamespace"}, 2, "",
			`tandemctl: -n: namespace "nosuchnamespace" does not exist in this cluster`},
		{"-n with -A", []string{"--kubeconfig", clean, "-n", "jobs", "-A"}, 2, "", "-n and -A: give one namespace or all of them"},
		{"-o yaml", []string{"--kubeconfig", clean, "-o", "yaml"}, 2, "", `-o "yaml": expected text or json`},
		{"--stuck-after 0s", []string{"--kubeconfig", clean, "--stuck-after", "0s"}, 2, "", "--stuck-after 0s: expected a positive duration"},
		{"--stuck-after soon", []string{"--kubeconfig", clean, "--stuck-after", "soon"}, 2, "", `--stuck-after "soon": expected a duration such as 10s, 1m or 1h30m`},
		{"an argument", []string{"--kubeconfig", clean, "jobs"}, 2, "", `check takes no arguments, got ["jobs"]`},
		{"no API server", []string{"--kubeconfig", writeKubeconfig(t, "http://127.0.0.1:1")}, 1, "", "tandemctl: list namespaces:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := run(t, "", append([]string{"check"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nwant it to hold %q\nstderr:\n%s\nwant it to hold %q", code, tc.code, stdout, tc.stdout, stderr, tc.stderr)
			}
		})
	}
}

// check and webhook take one --kubeconfig: same name, variables, usage.
func TestKubeconfigFlagShared(t *testing.T) {
	find := func(c *cli.Command) cli.Flag {
		for _, f := range c.Flags {
			if f.Names()[0] == "kubeconfig" {
				return f
			}
		}
		t.Fatalf("%s has no --kubeconfig", c.Name)
		return nil
	}
	if a, b := find(checkCommand()), find(webhookCommand()); !reflect.DeepEqual(a, b) {
		t.Errorf("check's --kubeconfig %+v differs from webhook's %+v", a, b)
	}
	if !strings.HasPrefix(checkUserAgent, "tandemctl-check/") || strings.TrimPrefix(checkUserAgent, "tandemctl-check/") != version {
		t.Errorf("User-Agent %q; want tandemctl-check/%s", checkUserAgent, version)
	}
}

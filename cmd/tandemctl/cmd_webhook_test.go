package main

import (
	"net"
	"strings"
	"testing"
)

func TestWebhookUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"webhook", "--on-error", "maybe"}, `--on-error: on-error "maybe": expected reject or allow`},
		{[]string{"webhook", "--mode", "sidecar"}, `--mode: mode "sidecar"`},
		{[]string{"webhook", "--namespace-selector", "a in ("}, `--namespace-selector "a in ("`},
		{[]string{"webhook", "--sidecar-image", " "}, `sidecar image pattern ""`},
		{[]string{"webhook", "--resolve", "sometimes"}, `--resolve "sometimes": expected registry or none`},
		{[]string{"webhook", "--log-level", "loud"}, `--log-level "loud"`},
		{[]string{"webhook", "--cache-size", "0"}, "cache size 0: expected at least 1"},
	}
	for _, tt := range tests {
		_, stderr, code := run(t, "", tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// Every flag of the webhook has its TANDEMCTL_<FLAG> variable.
func TestWebhookEnvironment(t *testing.T) {
	for _, f := range webhookCommand().Flags {
		name := f.Names()[0]
		want := "TANDEMCTL_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		env, ok := f.(interface{ GetEnvVars() []string })
		if !ok || len(env.GetEnvVars()) == 0 || env.GetEnvVars()[0] != want {
			t.Errorf("--%s: variables %v; want %s first", name, env.GetEnvVars(), want)
		}
	}
	t.Setenv("TANDEMCTL_ON_ERROR", "never")
	if _, stderr, code := run(t, "", "webhook"); code != 2 || !strings.Contains(stderr, `"never"`) {
		t.Errorf("TANDEMCTL_ON_ERROR=never: exit %d, %q; want exit 2 naming the value", code, stderr)
	}
}

// A metrics port that cannot be bound stops the webhook, naming it.
func TestWebhookMetricsPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, stderr, code := run(t, "", "webhook", "--kubeconfig", writeKubeconfig(t, "http://127.0.0.1:1"), "--resolve", "none",
		"--listen", "127.0.0.1:0", "--cert-dir", t.TempDir(), "--shutdown-delay", "0s", "--metrics-listen", ln.Addr().String())
	if code != 1 || !strings.Contains(stderr, "metrics: listen on "+ln.Addr().String()) {
		t.Errorf("exit %d, stderr %q; want exit 1 naming the metrics address", code, stderr)
	}
}

// A development build's webhook without --image logs a warning naming the
// flag at start; with --image it does not.
func TestWebhookDevelopmentImage(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	webhook := func(extra ...string) string {
		// The taken metrics port ends the webhook once it has started.
		args := append([]string{"webhook", "--kubeconfig", writeKubeconfig(t, "http://127.0.0.1:1"), "--resolve", "none",
			"--listen", "127.0.0.1:0", "--cert-dir", t.TempDir(), "--shutdown-delay", "0s", "--metrics-listen", ln.Addr().String()}, extra...)
		_, stderr, _ := run(t, "", args...)
		return stderr
	}
	stderr := webhook()
	if !strings.Contains(stderr, `"event":"development-image"`) || !strings.Contains(stderr, "--image not set: this development build's default, localhost/tandem:dev, was never published") {
		t.Errorf("stderr %q; want a development-image warning naming --image", stderr)
	}
	if stderr := webhook("--image", "registry.example/tandem:mine"); strings.Contains(stderr, "development-image") {
		t.Errorf("--image given, yet: %q", stderr)
	}
}

package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestWebhookUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"webhook", "--on-error", "maybe"}, `--on-error "maybe": expected reject or allow`},
		{[]string{"webhook", "--mode", "sidecar"}, `--mode "sidecar": expected classic, native or auto`},
		{[]string{"webhook", "--namespace-selector", "a in ("}, `--namespace-selector "a in ("`},
		{[]string{"webhook", "--sidecar-image", " "}, `--sidecar-image "": expected a glob`},
		{[]string{"webhook", "--resolve", "sometimes"}, `--resolve "sometimes": expected registry or none`},
		{[]string{"webhook", "--log-level", "loud"}, `--log-level "loud"`},
		{[]string{"webhook", "--cache-size", "0"}, `--cache-size "0": expected a whole number of 1 or more`},
		{[]string{"webhook", "--sidecar-image", "[proxy]*"}, `--sidecar-image "[proxy]*": expected a glob`},
		{[]string{"webhook", "--shutdown-delay", "-1s"}, `--shutdown-delay "-1s": expected a duration of 0 or more`},
		{[]string{"webhook", "--insecure-registry", "a b"}, `--insecure-registry "a b": expected a registry HOST[:PORT]`},
		{[]string{"webhook", "--listen", "localhost"}, `--listen "localhost": expected an address HOST:PORT`},
		{[]string{"webhook", "--metrics-listen", ":http-alt-nope"}, `--metrics-listen ":http-alt-nope": expected an address HOST:PORT`},
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

// lineChan hands each line written to it to a channel (the webhook logs
// one JSON line per write, from several goroutines).
type lineChan chan string

func (c lineChan) Write(p []byte) (int, error) {
	c <- strings.TrimSpace(string(p))
	return len(p), nil
}

// A webhook started while its API server is away stays up: /healthz
// answers 200, /readyz names the API server and the bootstrap it waits
// for, the bootstrap is retried, and the stop ends it with exit 0.
func TestWebhookStartsWithoutTheAPIServer(t *testing.T) {
	logs := make(lineChan, 1024)
	ctx, cancel := context.WithCancel(context.Background())
	exit := make(chan error, 1)
	go func() {
		exit <- newApp(strings.NewReader(""), io.Discard, logs).RunContext(ctx, []string{"tandemctl", "webhook",
			"--kubeconfig", writeKubeconfig(t, "http://127.0.0.1:1"), "--resolve", "none", "--image", testImage,
			"--listen", "127.0.0.1:0", "--cert-dir", t.TempDir(), "--shutdown-delay", "0s", "--metrics-listen", "",
			"--namespace", "tandem-system", "--bootstrap-secret", "tandem-webhook-tls"})
	}()
	next := func(event string) map[string]any {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case line := <-logs:
				var fields map[string]any
				if json.Unmarshal([]byte(line), &fields) == nil && fields["event"] == event {
					return fields
				}
			case err := <-exit:
				t.Fatalf("the webhook ended (%v) before logging %s", err, event)
			case <-timeout:
				t.Fatalf("no %s line", event)
			}
		}
	}
	url := "https://" + next("listening")["address"].(string)
	refused := `Get "http://127.0.0.1:1/readyz": dial tcp 127.0.0.1:1: connect: connection refused`
	if retry := next("bootstrap-retry"); !strings.Contains(retry["error"].(string), "127.0.0.1:1") {
		t.Errorf("bootstrap-retry %v; want its error to name the API server", retry)
	}
	probe := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := probe.Get(url + path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("healthz without the API server: %d; want 200", code)
	}
	code, body := get("/readyz")
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if code != 503 || len(lines) != 2 || lines[0] != "waiting for the API server at http://127.0.0.1:1: "+refused ||
		!strings.HasPrefix(lines[1], "waiting for the serving certificate: bootstrap: bootstrap the serving certificate in secret tandem-system/tandem-webhook-tls: ") {
		t.Errorf("readyz without the API server: %d\n%s\nwant 503 naming the API server, then the bootstrap", code, body)
	}
	if unreachable := next("api-server-unreachable"); unreachable["level"] != "warn" {
		t.Errorf("api-server-unreachable %v; want a warning", unreachable)
	}
	go func() {
		for range logs {
		}
	}()
	cancel()
	if err := <-exit; err != nil {
		t.Errorf("the stop: %v; want exit 0", err)
	}
}

package metrics

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// The server answers /metrics in plain HTTP until its context ends.
func TestServerServesUntilStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan net.Addr, 1)
	s := &Server{Listen: "127.0.0.1:0", Metrics: New(nil), Logger: zerolog.Nop(), Listening: listening}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	addr := <-listening
	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "# TYPE tandem_webhook_registry_lookups_total counter") {
		t.Errorf("status %d, body lacks the lookups counter:\n%s", resp.StatusCode, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("stopped with %v; want nil", err)
	}
}

// A port already taken fails at once, naming it.
func TestServerPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s := &Server{Listen: ln.Addr().String(), Metrics: New(nil), Logger: zerolog.Nop()}
	if err := s.Run(context.Background()); err == nil || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Errorf("error %v; want one naming %s", err, ln.Addr())
	}
}

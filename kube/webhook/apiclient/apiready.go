package apiclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/tandem-sh/tandem/kube/webhook"
)

// APIReadiness asks the API server's own /readyz, with the webhook's
// credentials and transport. Every identity may read it (the ClusterRole
// system:public-info-viewer, bound to system:authenticated and
// system:unauthenticated), so it needs no rule in examples/webhook/.
type APIReadiness struct {
	client *http.Client
	host   string
}

var _ webhook.APIServer = APIReadiness{}

// NewAPIReadiness asks the API server that cfg reaches.
func NewAPIReadiness(cfg *rest.Config) (APIReadiness, error) {
	// As client-go reads the host: a scheme added when missing, a path
	// prefix (an API server behind a proxy) kept.
	base, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return APIReadiness{}, fmt.Errorf("the API server's address %q: %w", cfg.Host, err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return APIReadiness{}, fmt.Errorf("a client for the API server at %s: %w", base, err)
	}
	return APIReadiness{client: client, host: strings.TrimSuffix(base.String(), "/")}, nil
}

func (a APIReadiness) Address() string { return a.host }

// Ready is nil when /readyz answers 200; else the request's error, or the
// status with the first of the body (which names the failed checks).
func (a APIReadiness) Ready(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.host+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return err // a *url.Error: Get "https://…/readyz": dial tcp …
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s/readyz: %s: %s", a.host, resp.Status, strings.Join(strings.Fields(string(body)), " "))
	}
	return nil
}

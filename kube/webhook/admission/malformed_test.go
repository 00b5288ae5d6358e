package admission

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestMalformedReviews(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		name, method, contentType, body string
		want                            int
	}{
		{"not JSON", "POST", "application/json", "{not json", 400},
		{"empty body", "POST", "application/json", "", 400},
		{"no request", "POST", "application/json", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, 400},
		{"v1beta1", "POST", "application/json", `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"1"}}`, 400},
		{"wrong types", "POST", "application/json", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}}`, 400},
		{"a JSON array", "POST", "application/json", `[1,2]`, 400},
		{"GET", "GET", "", "", 405},
		{"YAML", "POST", "application/yaml", "apiVersion: admission.k8s.io/v1", 415},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(tt.method, "/mutate", strings.NewReader(tt.body))
		if tt.contentType != "" {
			req.Header.Set("Content-Type", tt.contentType)
		}
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("%s: status %d (%s); want %d", tt.name, rec.Code, strings.TrimSpace(rec.Body.String()), tt.want)
		}
	}
}

// A review whose object is not a pod is answered (a refusal), not a panic.
func TestMalformedObjects(t *testing.T) {
	f := newFixture(t, nil)
	for _, obj := range []string{`[]`, `"a string"`, `{"kind":"Pod","spec":{"containers":"none"}}`,
		`{"kind":"Pod","metadata":{"annotations":{"tandem.sh/sidecars":"x"}},"spec":{"containers":[{"name":"x"}]}}`,
		`{"metadata":{"annotations":{"tandem.sh/sidecars":"b"}},"spec":{"containers":[{"name":"a","command":["a"]},{"name":"b","command":["b"]}]}}`} {
		code, resp := f.post(t, reviewOf(t, "batch", obj))
		if code != 200 || resp == nil {
			t.Errorf("object %s: status %d; want an answer", obj, code)
		}
	}
}

// endless is a body that never ends, counting what was read of it.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	e.read += len(p)
	return len(p), nil
}

func TestHugeReviewIsBounded(t *testing.T) {
	f := newFixture(t, nil)
	body := &endless{}
	req := httptest.NewRequest("POST", "/mutate", body)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d; want 413", rec.Code)
	}
	if body.read > MaxReviewBytes+1<<20 {
		t.Errorf("read %d bytes of an endless body; want about %d", body.read, MaxReviewBytes)
	}

	// Just under the bound is read and answered.
	pad := bytes.Repeat([]byte(" "), MaxReviewBytes-len(reviewOf(t, "batch", jobPod))-1)
	code, resp := f.post(t, append(reviewOf(t, "batch", jobPod), pad...))
	if code != 200 || !resp.Allowed {
		t.Errorf("a review just under %d bytes: status %d; want it answered", MaxReviewBytes, code)
	}
}

// FuzzMutate: whatever the body, an answer and never a panic.
func FuzzMutate(f *testing.F) {
	fx := newFixture(f, nil)
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"batch","object":{"kind":"Pod","spec":{"containers":[{"name":"a","command":["a"]},{"name":"b","command":["b"]}]},"metadata":{"annotations":{"tandem.sh/sidecars":"b"}}}}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/mutate", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		fx.handler.ServeHTTP(rec, req)
		if rec.Code != 200 && rec.Code != 400 {
			t.Errorf("status %d; want 200 or 400", rec.Code)
		}
	})
}

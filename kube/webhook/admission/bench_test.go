package admission

import (
	"bytes"
	"net/http/httptest"
	"testing"
)

// BenchmarkMutate: one admission of jobPod, in process (warm image cache:
// the fake answers at once). `go test -bench Mutate ./kube/webhook/admission`.
func BenchmarkMutate(b *testing.B) {
	f := newFixture(b, nil)
	body := reviewOf(b, "batch", jobPod)
	for b.Loop() {
		req := httptest.NewRequest("POST", "/mutate", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The stand-in answers /quitquitquit as pilot-agent does: 403 off
// loopback, 405 for GET, 200 and a quit for POST from loopback.
func TestQuitRule(t *testing.T) {
	for _, tc := range []struct {
		method, remote string
		code           int
		quits          bool
	}{
		{http.MethodPost, "10.244.0.7:40000", http.StatusForbidden, false},
		{http.MethodGet, "127.0.0.1:40000", http.StatusMethodNotAllowed, false},
		{http.MethodPost, "127.0.0.1:40000", http.StatusOK, true},
		{http.MethodPost, "[::1]:40000", http.StatusOK, true},
	} {
		quit := make(chan struct{}, 1)
		req := httptest.NewRequest(tc.method, "/quitquitquit", nil)
		req.RemoteAddr = tc.remote
		rec := httptest.NewRecorder()
		proxyMux(quit).ServeHTTP(rec, req)
		quitted := len(quit) == 1
		if rec.Code != tc.code || quitted != tc.quits {
			t.Errorf("%s from %s: %d, quit %v; want %d, quit %v", tc.method, tc.remote, rec.Code, quitted, tc.code, tc.quits)
		}
	}
}

func TestIstioPatchOnce(t *testing.T) {
	pod := `{"spec":{"containers":[{"name":"export","image":"x"}]}}`
	if p := istioPatch([]byte(pod), "istio/proxyv2:test"); p == nil {
		t.Fatal("no patch for a pod without istio-proxy")
	}
	again := `{"spec":{"containers":[{"name":"export","image":"x"},{"name":"istio-proxy","image":"y"}]}}`
	if p := istioPatch([]byte(again), "istio/proxyv2:test"); p != nil {
		t.Errorf("patch %s for a pod that has istio-proxy; want none", p)
	}
}

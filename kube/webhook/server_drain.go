package webhook

import "net/http"

// closeWhenStopping answers with "Connection: close" once the server is
// stopping. The API server keeps its connections to a webhook's Service
// alive and resolves the Service to a pod only when it dials, so it goes
// on calling a replica that has left the endpoints for as long as a
// connection to it stays open; when the shutdown delay ends and the idle
// ones are closed, a call sent on one as it closes fails ("broken pipe":
// refused under failurePolicy Fail, admitted without tandem under Ignore).
// Closing each connection after its answer during the delay makes the
// next call dial again, to a replica still in the endpoints.
func (s *Server) closeWhenStopping(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.stopping.Load() {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

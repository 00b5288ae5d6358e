package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
)

// serveInjector answers each Pod CREATE with a patch appending
// istio-proxy, unless the pod has one already.
func serveInjector(certDir, proxyImage string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/inject", func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		body, err := io.ReadAll(io.LimitReader(r.Body, 7<<20))
		if err == nil {
			err = json.Unmarshal(body, &review)
		}
		if err != nil || review.Request == nil {
			http.Error(w, fmt.Sprintf("bad review: %v", err), http.StatusBadRequest)
			return
		}
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		if patch := istioPatch(review.Request.Object.Raw, proxyImage); patch != nil {
			pt := admissionv1.PatchTypeJSONPatch
			resp.Patch, resp.PatchType = patch, &pt
		}
		review.Response, review.Request = resp, nil
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	})
	return http.ListenAndServeTLS(":8443", filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"), mux)
}

// istioPatch appends the container Istio's injector adds: its name,
// image, args and ports; nil when the pod has it already.
func istioPatch(raw []byte, proxyImage string) []byte {
	var pod corev1.Pod
	if json.Unmarshal(raw, &pod) != nil {
		return nil
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == "istio-proxy" {
			return nil
		}
	}
	proxy := corev1.Container{
		Name:            "istio-proxy",
		Image:           proxyImage,
		ImagePullPolicy: corev1.PullNever,
		Args:            []string{"proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local", "--proxyLogLevel=warning"},
		Ports: []corev1.ContainerPort{
			{Name: "http-envoy-prom", ContainerPort: 15090, Protocol: corev1.ProtocolTCP},
			{Name: "http-status", ContainerPort: 15021, Protocol: corev1.ProtocolTCP},
		},
	}
	patch, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/spec/containers/-", "value": proxy}})
	return patch
}

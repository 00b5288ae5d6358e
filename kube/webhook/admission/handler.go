package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// MaxReviewBytes bounds the body of one review. The API server stores
// objects of at most 1.5 MiB and a review of a CREATE carries one; 7 MiB
// (controller-runtime's bound) leaves room and still bounds memory.
const MaxReviewBytes = 7 << 20

// defaultBudget is the time an admission may take when the API server
// does not say (it sends ?timeout=, the configuration's timeoutSeconds).
const defaultBudget = 10 * time.Second

// Handler serves /mutate.
type Handler struct {
	cfg           Config
	sidecarImages []imageGlob
	recorder      Recorder
	// mode, when set, replaces cfg.Inject.Mode: --mode auto's choice,
	// read again while the webhook runs (SetMode).
	mode atomic.Pointer[inject.Mode]
	// install, when set, replaces cfg.Inject.Install: --install auto's
	// choice, read again while the webhook runs (SetInstall).
	install atomic.Pointer[inject.Install]
}

// SetMode makes the admissions from now on inject in mode: what --mode
// auto read of the cluster, which may change as nodes come and go.
func (h *Handler) SetMode(mode inject.Mode) { h.mode.Store(&mode) }

// SetInstall makes the admissions from now on install tandem so: what
// --install auto read of the cluster, which may change as nodes come and
// go.
func (h *Handler) SetInstall(install inject.Install) { h.install.Store(&install) }

// NewHandler checks cfg and returns the /mutate handler.
func NewHandler(cfg Config) (*Handler, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	h := &Handler{cfg: cfg, recorder: cfg.Recorder}
	if h.recorder == nil {
		h.recorder = NoRecorder{}
	}
	for _, p := range cfg.SidecarImages {
		g, _ := compileImageGlob(p) // checked above
		h.sidecarImages = append(h.sidecarImages, g)
	}
	return h, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	review, status, err := readReview(w, r)
	if err != nil {
		h.cfg.Logger.Warn().Str("event", "bad-review").Int("status", status).Err(err).Msg("review refused")
		http.Error(w, err.Error(), status)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), budget(r))
	defer cancel()
	d := h.admit(ctx, review.Request)
	d.response.UID = review.Request.UID
	h.logDecision(review.Request, d, time.Since(start))
	out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: d.response}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(out); err != nil {
		h.cfg.Logger.Warn().Str("event", "write-failed").Err(err).Msg("could not write the review's answer")
	}
	h.recorder.Admission(outcomeOf(d.name), d.cause, time.Since(start))
}

// readReview decodes one AdmissionReview v1, bounded; the status is the
// HTTP code to answer with when it cannot.
func readReview(w http.ResponseWriter, r *http.Request) (*admissionv1.AdmissionReview, int, error) {
	if r.Method != http.MethodPost {
		return nil, http.StatusMethodNotAllowed, fmt.Errorf("method %s: expected POST", r.Method)
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("content type %q: expected application/json", ct)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxReviewBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("review larger than %d bytes", MaxReviewBytes)
	}
	if err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("read the review: %w", err)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("decode the review: %w", err)
	}
	gvk := review.GroupVersionKind()
	if gvk.Group != admissionv1.GroupName || gvk.Version != "v1" || gvk.Kind != "AdmissionReview" {
		return nil, http.StatusBadRequest, fmt.Errorf("review of kind %q: expected admission.k8s.io/v1 AdmissionReview", gvk.String())
	}
	if review.Request == nil {
		return nil, http.StatusBadRequest, errors.New("review without a request")
	}
	return &review, http.StatusOK, nil
}

// budget is the time this admission may take: the API server's timeout
// less a margin for the answer's way back.
func budget(r *http.Request) time.Duration {
	d, err := time.ParseDuration(r.URL.Query().Get("timeout"))
	if err != nil || d <= 0 {
		return defaultBudget
	}
	return max(d-d/5, 100*time.Millisecond)
}

// deny builds a refusal whose message the API server passes on (the Job
// controller puts it in the Job's events).
func deny(msg string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: msg,
	}}
}

package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/rs/zerolog"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-sh/tandem/kube/inject"
)

// fakeNamespaces holds the labels of each namespace.
type fakeNamespaces map[string]map[string]string

func (f fakeNamespaces) Labels(_ context.Context, ns string) (map[string]string, error) {
	l, ok := f[ns]
	if !ok {
		return nil, errors.New(`namespaces "` + ns + `" not found`)
	}
	return l, nil
}

// fakeImages serves image configs from a map and records each lookup's
// keychain; an image served before counts as cached, as a digest cache
// would say.
type fakeImages struct {
	configs map[string]inject.ImageConfig

	mu        sync.Mutex // the pod's images are read at once
	keychains []authn.Keychain
	served    map[string]bool
}

func (f *fakeImages) Resolve(_ context.Context, image string, kc authn.Keychain) (inject.ImageConfig, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keychains = append(f.keychains, kc)
	c, ok := f.configs[image]
	if !ok {
		return inject.ImageConfig{}, false, errors.New("GET https://" + image + ": MANIFEST_UNKNOWN: manifest unknown")
	}
	cached := f.served[image]
	if f.served == nil {
		f.served = map[string]bool{}
	}
	f.served[image] = true
	return c, cached, nil
}

// fakeRecorder keeps what the handler counted.
type fakeRecorder struct {
	mu         sync.Mutex
	admissions []recordedAdmission
	lookups    []LookupResult
}

type recordedAdmission struct {
	outcome Outcome
	reason  Reason
}

func (r *fakeRecorder) Admission(outcome Outcome, reason Reason, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.admissions = append(r.admissions, recordedAdmission{outcome, reason})
}

func (r *fakeRecorder) Lookup(result LookupResult, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups = append(r.lookups, result)
}

// fakeKeychains records the credentials asked for.
type fakeKeychains struct{ asked []PodCredentials }

func (f *fakeKeychains) Keychain(_ context.Context, pod PodCredentials) (authn.Keychain, error) {
	f.asked = append(f.asked, pod)
	return authn.NewMultiKeychain(), nil
}

// fixture is a handler over fakes, with what it logged.
type fixture struct {
	handler   *Handler
	images    *fakeImages
	keychains *fakeKeychains
	recorder  *fakeRecorder
	log       *bytes.Buffer
}

func newFixture(t testing.TB, change func(*Config)) *fixture {
	t.Helper()
	f := &fixture{
		images: &fakeImages{configs: map[string]inject.ImageConfig{
			"registry.example/app:1":   {Entrypoint: []string{"/app"}, Cmd: []string{"--serve"}},
			"registry.example/proxy:2": {Entrypoint: []string{"/proxy"}, StopSignal: "SIGINT"},
			"registry.example/ship:1":  {Entrypoint: []string{"/ship"}, StopSignal: "SIGQUIT"},
		}},
		keychains: &fakeKeychains{},
		recorder:  &fakeRecorder{},
		log:       &bytes.Buffer{},
	}
	cfg := Config{
		Inject:    inject.Options{Mode: inject.Classic, Image: "localhost/tandem:test", Version: "v9"},
		OnError:   inject.Reject,
		Selector:  labels.SelectorFromSet(labels.Set{"tandem.sh/inject": "enabled"}),
		Images:    f.images,
		Keychains: f.keychains,
		Logger:    zerolog.New(f.log),
		Recorder:  f.recorder,
		Namespaces: fakeNamespaces{
			"batch": {"tandem.sh/inject": "enabled"},
			"plain": {"team": "x"},
		},
	}
	if change != nil {
		change(&cfg)
	}
	h, err := NewHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.handler = h
	return f
}

// reviewOf wraps a pod in the AdmissionReview the API server sends for a
// CREATE in namespace.
func reviewOf(t testing.TB, namespace, pod string) []byte {
	t.Helper()
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       "4f0c6d1e-0000-4000-8000-000000000001",
			Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			Namespace: namespace, Operation: admissionv1.Create,
		},
	}
	review.Request.Object.Raw = []byte(pod)
	b, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends body to /mutate and returns the HTTP status and the answer.
func (f *fixture) post(t *testing.T, body []byte) (int, *admissionv1.AdmissionResponse) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/mutate?timeout=10s", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return rec.Code, nil
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("answer does not decode: %v\n%s", err, rec.Body)
	}
	if out.Response == nil || out.Response.UID != "4f0c6d1e-0000-4000-8000-000000000001" {
		t.Fatalf("answer without the request's UID: %s", rec.Body)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" {
		t.Fatalf("answer of kind %s %s; want admission.k8s.io/v1 AdmissionReview", out.APIVersion, out.Kind)
	}
	return rec.Code, out.Response
}

// patched applies the answer's patch to pod, as the API server does.
func patched(t *testing.T, pod string, resp *admissionv1.AdmissionResponse) *corev1.Pod {
	t.Helper()
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("patch type %v; want JSONPatch", resp.PatchType)
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatalf("patch does not decode: %v\n%s", err, resp.Patch)
	}
	out, err := p.Apply([]byte(pod))
	if err != nil {
		t.Fatalf("patch does not apply: %v\n%s", err, resp.Patch)
	}
	var got corev1.Pod
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("patched pod does not decode: %v\n%s", err, out)
	}
	return &got
}

// logLines decodes what the handler logged.
func (f *fixture) logLines(t *testing.T) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(f.log.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		lines = append(lines, m)
	}
	return lines
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// reviewWith is reviewOf with the request changed.
func reviewWith(t *testing.T, namespace, pod string, change func(*admissionv1.AdmissionRequest)) []byte {
	t.Helper()
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(reviewOf(t, namespace, pod), &review); err != nil {
		t.Fatal(err)
	}
	change(review.Request)
	return []byte(mustJSON(t, review))
}

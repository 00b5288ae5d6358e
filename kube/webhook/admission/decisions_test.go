package admission

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// Pods that are admitted unchanged, and why the log says so.
func TestAdmittedUnchanged(t *testing.T) {
	tests := []struct {
		name, namespace, pod, reason string
	}{
		{"already injected", "batch", withAnnotations(jobPod, `"tandem.sh/sidecars":"db-proxy","tandem.sh/injected":"v8"`), "already injected"},
		{"opted out", "batch", withAnnotations(jobPod, `"tandem.sh/sidecars":"db-proxy","tandem.sh/inject":"disabled"`), "tandem.sh/inject: disabled"},
		{"namespace not selected", "plain", jobPod, "namespace plain not selected"},
		{"no sidecars named", "batch", withAnnotations(jobPod, `"team":"x"`), "no sidecars named"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			code, resp := f.post(t, reviewOf(t, tt.namespace, tt.pod))
			if code != 200 || !resp.Allowed || resp.Patch != nil || resp.PatchType != nil {
				t.Fatalf("status %d, %+v; want allowed without a patch", code, resp)
			}
			if len(f.images.keychains) != 0 {
				t.Errorf("%d image lookups; want none", len(f.images.keychains))
			}
			lines := f.logLines(t)
			if len(lines) != 1 || lines[0]["decision"] != Skipped || !strings.Contains(lines[0]["reason"].(string), tt.reason) {
				t.Errorf("log %v; want one line, decision skipped, reason with %q", lines, tt.reason)
			}
		})
	}
}

// A second pass (reinvocation, or a pod injected by the CLI) gives no patch.
func TestSecondPassIsNoop(t *testing.T) {
	f := newFixture(t, nil)
	_, resp := f.post(t, reviewOf(t, "batch", jobPod))
	pod := patched(t, jobPod, resp)
	again := mustJSON(t, pod)
	_, resp = f.post(t, reviewOf(t, "batch", again))
	if !resp.Allowed || resp.Patch != nil {
		t.Errorf("second pass: %+v; want allowed without a patch", resp)
	}
}

func TestUnresolvableImage(t *testing.T) {
	pod := strings.Replace(jobPod, "registry.example/proxy:2", "registry.example/gone:1", 1)
	wants := []string{`container "db-proxy"`, `image "registry.example/gone:1"`, "MANIFEST_UNKNOWN", "give the container a command:"}

	f := newFixture(t, nil)
	_, resp := f.post(t, reviewOf(t, "batch", pod))
	if resp.Allowed || resp.Result == nil || resp.Result.Code != 403 {
		t.Fatalf("%+v; want a refusal with code 403", resp)
	}
	for _, w := range wants {
		if !strings.Contains(resp.Result.Message, w) {
			t.Errorf("message %q lacks %q", resp.Result.Message, w)
		}
	}
	if l := f.logLines(t); len(l) != 1 || l[0]["decision"] != Rejected || l[0]["level"] != "warn" {
		t.Errorf("log %v; want one warn line, decision rejected", l)
	}

	f = newFixture(t, func(c *Config) { c.OnError = inject.Allow })
	_, resp = f.post(t, reviewOf(t, "batch", pod))
	if !resp.Allowed || resp.Patch != nil || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], wants[1]) {
		t.Fatalf("%+v; want allowed, unchanged, with a warning naming the image", resp)
	}
	if l := f.logLines(t); len(l) != 1 || l[0]["decision"] != AllowedUninjected || l[0]["level"] != "warn" {
		t.Errorf("log %v; want one warn line, decision allowed-uninjected", l)
	}
}

// A main without a command whose image cannot be read: the fix is a command.
func TestUnresolvableMainImage(t *testing.T) {
	pod := strings.Replace(jobPod, `"image":"registry.example/app:1","command":["sh","-c","pg_dump > /out/db.sql"]`, `"image":"registry.example/private:1"`, 1)
	f := newFixture(t, nil)
	_, resp := f.post(t, reviewOf(t, "batch", pod))
	if resp.Allowed || !strings.Contains(resp.Result.Message, `container "export" (image "registry.example/private:1")`) ||
		!strings.Contains(resp.Result.Message, "give the container a command:") {
		t.Errorf("%+v; want a refusal naming export, its image, and the fix", resp.Result)
	}
}

func TestNotAPodCreate(t *testing.T) {
	f := newFixture(t, nil)
	for _, change := range []func(*admissionv1.AdmissionRequest){
		func(r *admissionv1.AdmissionRequest) { r.Operation = admissionv1.Update },
		func(r *admissionv1.AdmissionRequest) { r.Kind.Kind = "Service" },
		func(r *admissionv1.AdmissionRequest) { r.SubResource = "ephemeralcontainers" },
	} {
		body := reviewWith(t, "batch", jobPod, change)
		_, resp := f.post(t, body)
		if !resp.Allowed || resp.Patch != nil {
			t.Errorf("%+v; want allowed without a patch", resp)
		}
	}
}

func TestLogLine(t *testing.T) {
	f := newFixture(t, nil)
	f.post(t, reviewOf(t, "batch", jobPod))
	l := f.logLines(t)
	if len(l) != 1 {
		t.Fatalf("%d log lines; want 1", len(l))
	}
	for key, want := range map[string]any{"event": "admission", "decision": Injected, "pod": "pod/export-*", "namespace": "batch"} {
		if l[0][key] != want {
			t.Errorf("log %s = %v; want %v", key, l[0][key], want)
		}
	}
	if d, ok := l[0]["duration_ms"].(float64); !ok || d < 0 {
		t.Errorf("log duration_ms = %v; want a number", l[0]["duration_ms"])
	}
}

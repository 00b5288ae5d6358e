package admission

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// A server-side dry run (kubectl apply --dry-run=server) is answered like
// any other review: the same patch, and nothing written anywhere (the
// handler only reads: namespaces, credentials, images).
func TestDryRunAnsweredLikeAnyOther(t *testing.T) {
	wet, dry := newFixture(t, nil), newFixture(t, nil)
	_, want := wet.post(t, reviewOf(t, "batch", jobPod))
	_, got := dry.post(t, reviewWith(t, "batch", jobPod, func(r *admissionv1.AdmissionRequest) {
		yes := true
		r.DryRun = &yes
	}))
	if !got.Allowed || got.Patch == nil {
		t.Fatalf("dry run: %+v; want allowed with a patch", got)
	}
	// The same operations: the diff lists them in no fixed order.
	if !reflect.DeepEqual(patchedDoc(t, jobPod, got), patchedDoc(t, jobPod, want)) || !reflect.DeepEqual(got.PatchType, want.PatchType) ||
		!reflect.DeepEqual(got.Warnings, want.Warnings) || len(got.Patch) != len(want.Patch) {
		t.Errorf("dry run patch %s; want the same as without: %s", got.Patch, want.Patch)
	}
	if len(dry.images.keychains) != len(wet.images.keychains) || len(dry.keychains.asked) != len(wet.keychains.asked) {
		t.Errorf("dry run: %d lookups, %d credentials; want %d and %d as without", len(dry.images.keychains),
			len(dry.keychains.asked), len(wet.images.keychains), len(wet.keychains.asked))
	}
}

// applied is pod with the answer's patch applied, as the API server does.
func applied(t *testing.T, pod string, resp *admissionv1.AdmissionResponse) []byte {
	t.Helper()
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply([]byte(pod))
	if err != nil {
		t.Fatalf("patch does not apply: %v\n%s", err, resp.Patch)
	}
	return out
}

// patchedDoc is applied's result as JSON values.
func patchedDoc(t *testing.T, pod string, resp *admissionv1.AdmissionResponse) any {
	t.Helper()
	var doc any
	if err := json.Unmarshal(applied(t, pod, resp), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// Fields the Kubernetes libraries do not know (newer than them, or a
// native sidecar's restartPolicy on an old client) survive the patch byte
// for byte: the patch touches only what the injection changes.
func TestPatchKeepsUnknownFields(t *testing.T) {
	const (
		futureContainerField = `"futureContainerField":{"mode":"strict","levels":[3,1,2]}`
		futureSpecField      = `"futureSpecField":{"zeta":true,"alpha":"a b"}`
		nativeSidecar        = `{"name":"log-shipper","image":"registry.example/ship:1","command":["/ship"],"restartPolicy":"Always"}`
	)
	pod := strings.Replace(jobPod, `"command":["sh","-c","pg_dump > /out/db.sql"],`,
		`"command":["sh","-c","pg_dump > /out/db.sql"],`+futureContainerField+`,`, 1)
	pod = strings.Replace(pod, `"terminationGracePeriodSeconds":30,`,
		`"terminationGracePeriodSeconds":30,`+futureSpecField+`,"initContainers":[`+nativeSidecar+`],`, 1)
	for _, mode := range []inject.Mode{inject.Classic, inject.Native} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.Inject.Mode = mode })
			_, resp := f.post(t, reviewOf(t, "batch", pod))
			if !resp.Allowed || resp.Patch == nil {
				t.Fatalf("%+v; want an injected pod", resp)
			}
			var doc struct {
				Spec struct {
					Containers     []map[string]json.RawMessage `json:"containers"`
					InitContainers []json.RawMessage            `json:"initContainers"`
					Future         json.RawMessage              `json:"futureSpecField"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(applied(t, pod, resp), &doc); err != nil {
				t.Fatal(err)
			}
			if "\"futureSpecField\":"+string(doc.Spec.Future) != futureSpecField {
				t.Errorf("spec's unknown field became %s; want %s", doc.Spec.Future, futureSpecField)
			}
			var export map[string]json.RawMessage
			for _, c := range doc.Spec.Containers {
				if string(c["name"]) == `"export"` {
					export = c
				}
			}
			if got := "\"futureContainerField\":" + string(export["futureContainerField"]); got != futureContainerField {
				t.Errorf("container's unknown field became %s; want %s", got, futureContainerField)
			}
			// The native sidecar is a sidecar by its own declaration:
			// wrapped where it is, its restartPolicy kept.
			kept := false
			for _, c := range doc.Spec.InitContainers {
				var ctr struct {
					Name, RestartPolicy string
					Args                []string
				}
				if json.Unmarshal(c, &ctr) == nil && ctr.Name == "log-shipper" {
					kept = ctr.RestartPolicy == "Always" && slices.Equal(ctr.Args, []string{"/ship"})
				}
			}
			if !kept {
				t.Errorf("init containers %s; want log-shipper among them, restartPolicy Always, its program /ship in args", doc.Spec.InitContainers)
			}
		})
	}
}

// A JSON pointer's escapes: ~1 for /, ~0 for ~.
func TestPointer(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(`{"metadata":{"annotations":{"tandem.sh/injected":"v9","a~b":"x"}},"list":[1,{"k":2}]}`), &doc); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/metadata/annotations/tandem.sh~1injected": "v9", "/metadata/annotations/a~0b": "x", "/list/1/k": "2",
	} {
		if n := pointer(doc.Content[0], path); n == nil || n.Value != want {
			t.Errorf("%s: %v; want %q", path, n, want)
		}
	}
	for _, path := range []string{"/metadata/labels", "/list/2", "/list/-1", "/metadata/annotations/tandem.sh/injected"} {
		if n := pointer(doc.Content[0], path); n != nil {
			t.Errorf("%s: %v; want none", path, n)
		}
	}
}

// SetMode changes the mode of the admissions that follow: --mode auto's
// choice, read again while the webhook runs.
func TestSetMode(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Inject.Mode = inject.Classic })
	native := func() bool {
		_, resp := f.post(t, reviewOf(t, "batch", jobPod))
		if !resp.Allowed || resp.Patch == nil {
			t.Fatalf("%+v; want an injected pod", resp)
		}
		return strings.Contains(string(applied(t, jobPod, resp)), `"restartPolicy":"Always"`)
	}
	if native() {
		t.Error("classic: a native sidecar written")
	}
	f.handler.SetMode(inject.Native)
	if !native() {
		t.Error("after SetMode(native): no native sidecar written")
	}
}

// SetInstall changes the install of the admissions that follow: --install
// auto's choice, read again while the webhook runs.
func TestSetInstall(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Inject.Install = inject.InitCopy })
	admitted := func() string {
		_, resp := f.post(t, reviewOf(t, "batch", jobPod))
		if !resp.Allowed || resp.Patch == nil {
			t.Fatalf("%+v; want an injected pod", resp)
		}
		return string(applied(t, jobPod, resp))
	}
	if pod := admitted(); !strings.Contains(pod, `"name":"tandem-install"`) || strings.Contains(pod, `"tandem-bin"`) {
		t.Errorf("init-copy: %s; want tandem-install and no tandem-bin volume", pod)
	}
	f.handler.SetInstall(inject.ImageVolume)
	pod := admitted()
	if strings.Contains(pod, `"name":"tandem-install"`) || !strings.Contains(pod, `{"name":"tandem-bin","image":{"reference":"localhost/tandem:test","pullPolicy":"IfNotPresent"}}`) ||
		!strings.Contains(pod, `"/run/tandem-bin/tandem"`) {
		t.Errorf("after SetInstall(image-volume): %s; want no tandem-install, the image volume, tandem run from /run/tandem-bin", pod)
	}
}

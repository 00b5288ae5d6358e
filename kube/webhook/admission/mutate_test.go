package admission

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-sh/tandem/kube/inject"
)

// jobPod is a pod as the Job controller creates it and the API server
// sends it after defaulting, with its sidecar named by annotation.
const jobPod = `{"kind":"Pod","apiVersion":"v1","metadata":{"generateName":"export-","namespace":"batch",
"creationTimestamp":null,"labels":{"batch.kubernetes.io/job-name":"export"},
"annotations":{"tandem.sh/sidecars":"db-proxy"},
"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"export","uid":"u1","controller":true}]},
"spec":{"restartPolicy":"Never","serviceAccountName":"builder","imagePullSecrets":[{"name":"regcred"}],
"terminationGracePeriodSeconds":30,
"containers":[
{"name":"export","image":"registry.example/app:1","command":["sh","-c","pg_dump > /out/db.sql"],"resources":{},
 "terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"},
{"name":"db-proxy","image":"registry.example/proxy:2","args":["--port","5432"],"resources":{},
 "terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}]},
"status":{}}`

func withAnnotations(pod, annotations string) string {
	return strings.Replace(pod, `"annotations":{"tandem.sh/sidecars":"db-proxy"}`, `"annotations":{`+annotations+`}`, 1)
}

func TestInjectsAnnotatedPod(t *testing.T) {
	f := newFixture(t, nil)
	code, resp := f.post(t, reviewOf(t, "batch", jobPod))
	if code != 200 || !resp.Allowed {
		t.Fatalf("status %d, %+v; want allowed", code, resp)
	}
	pod := patched(t, jobPod, resp)
	if pod.Annotations[inject.InjectedKey] != "v9" {
		t.Errorf("annotations %v; want %s: v9", pod.Annotations, inject.InjectedKey)
	}
	if len(pod.Spec.InitContainers) != 1 || pod.Spec.InitContainers[0].Name != inject.InstallContainer ||
		pod.Spec.InitContainers[0].Image != "localhost/tandem:test" {
		t.Errorf("init containers %+v; want tandem-install from localhost/tandem:test", pod.Spec.InitContainers)
	}
	// Sidecars first; the image's ENTRYPOINT merged in, its STOPSIGNAL read.
	proxy, main := pod.Spec.Containers[0], pod.Spec.Containers[1]
	wantProxy := "/run/tandem/tandem sidecar --name db-proxy --done-file /run/tandem/export.done"
	if proxy.Name != "db-proxy" || !strings.HasPrefix(strings.Join(proxy.Command, " "), wantProxy) ||
		!slices.Contains(proxy.Command, "--termination-signal") || !slices.Equal(proxy.Args, []string{"/proxy", "--port", "5432"}) {
		t.Errorf("sidecar %q %q; want %q … --termination-signal INT and args /proxy --port 5432", proxy.Command, proxy.Args, wantProxy)
	}
	if main.Name != "export" || !slices.Equal(main.Args, []string{"sh", "-c", "pg_dump > /out/db.sql"}) {
		t.Errorf("main %q %q; want its program in args", main.Command, main.Args)
	}
	// The pod's own credentials were asked for, once.
	want := PodCredentials{Namespace: "batch", ServiceAccount: "builder", PullSecrets: []string{"regcred"}}
	if len(f.keychains.asked) != 1 || !equalCredentials(f.keychains.asked[0], want) {
		t.Errorf("keychains asked for %+v; want once %+v", f.keychains.asked, want)
	}
	if len(resp.Patch) > 0 && strings.Contains(string(resp.Patch), `"/status"`) {
		t.Errorf("patch touches status: %s", resp.Patch)
	}
}

func equalCredentials(a, b PodCredentials) bool {
	return a.Namespace == b.Namespace && a.ServiceAccount == b.ServiceAccount && slices.Equal(a.PullSecrets, b.PullSecrets)
}

func TestKindsOfPods(t *testing.T) {
	noAnnotation := withAnnotations(jobPod, `"team":"x"`)
	tests := []struct {
		name      string
		change    func(*Config)
		pod       string
		sidecars  []string // container names wrapped as sidecars, in order
		native    bool
		noLookups bool
	}{
		{name: "sidecar named by --sidecar-image", pod: noAnnotation, sidecars: []string{"db-proxy"},
			change: func(c *Config) { c.SidecarImages = []string{"registry.example/proxy:*"} }},
		{name: "--sidecar-image's * spans slashes", pod: noAnnotation, sidecars: []string{"db-proxy"},
			change: func(c *Config) { c.SidecarImages = []string{"nothing", "*/proxy:?"} }},
		{name: "sidecar named by --sidecar", pod: noAnnotation, sidecars: []string{"db-proxy"},
			change: func(c *Config) { c.Inject.Sidecars = []string{"db-proxy", "absent"} }},
		{name: "native mode", pod: jobPod, sidecars: []string{"db-proxy"}, native: true,
			change: func(c *Config) { c.Inject.Mode = inject.Native }},
		{name: "no lookups when the pod says everything", sidecars: []string{"db-proxy"}, noLookups: true,
			pod: strings.Replace(jobPod, `"args":["--port","5432"]`, `"command":["/proxy"],"lifecycle":{"stopSignal":"SIGTERM"}`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.change)
			_, resp := f.post(t, reviewOf(t, "batch", tt.pod))
			if resp == nil || !resp.Allowed || resp.Patch == nil {
				t.Fatalf("%+v; want allowed with a patch", resp)
			}
			pod := patched(t, tt.pod, resp)
			var got []string
			for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
				if slices.Contains(c.Command, "sidecar") || (tt.native && c.RestartPolicy != nil) {
					got = append(got, c.Name)
				}
			}
			if !slices.Equal(got, tt.sidecars) {
				t.Errorf("sidecars %v; want %v", got, tt.sidecars)
			}
			if tt.noLookups && (len(f.images.keychains) != 0 || len(f.keychains.asked) != 0) {
				t.Errorf("%d lookups, %d keychains; want none", len(f.images.keychains), len(f.keychains.asked))
			}
		})
	}
}

// Two containers of one image: one lookup.
func TestOneLookupPerImage(t *testing.T) {
	pod := strings.Replace(jobPod, "registry.example/proxy:2", "registry.example/app:1", 1)
	pod = strings.Replace(pod, `"command":["sh","-c","pg_dump > /out/db.sql"],`, "", 1)
	f := newFixture(t, nil)
	_, resp := f.post(t, reviewOf(t, "batch", pod))
	if !resp.Allowed || resp.Patch == nil {
		t.Fatalf("%+v; want an injected pod", resp)
	}
	if len(f.images.keychains) != 1 {
		t.Errorf("%d lookups of the one image; want 1", len(f.images.keychains))
	}
}

func TestImageGlob(t *testing.T) {
	for _, tt := range []struct {
		pattern, image string
		want           bool
	}{
		{"*cloud-sql-proxy:*", "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0", true},
		{"*cloud-sql-proxy:*", "cloud-sql-proxy", false},
		{"docker.io/istio/proxyv2:1.2?", "docker.io/istio/proxyv2:1.22", true},
		{"a.b/c", "a-b/c", false}, // a dot is literal
		{"*proxy*", "registry.example/app:1", false},
	} {
		g, err := compileImageGlob(tt.pattern)
		if err != nil || g.match(tt.image) != tt.want {
			t.Errorf("%q on %q: %v (%v); want %v", tt.pattern, tt.image, !tt.want, err, tt.want)
		}
	}
	if _, err := compileImageGlob(" "); err == nil {
		t.Error("an empty pattern compiled")
	}
}

// A pod whose only sidecar is a native one (an init container with
// restartPolicy: Always), named nowhere, is injected in a selected
// namespace: a sidecar by its own declaration, wrapped where it is.
func TestInjectsNativeSidecarByDeclaration(t *testing.T) {
	pod := strings.Replace(withAnnotations(jobPod, ""), `"containers":[`,
		`"initContainers":[{"name":"shipper","image":"registry.example/ship:1","command":["/ship"],"restartPolicy":"Always"}],"containers":[`, 1)
	pod = strings.Replace(pod, `,
{"name":"db-proxy","image":"registry.example/proxy:2","args":["--port","5432"],"resources":{},
 "terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}`, "", 1)
	if strings.Contains(pod, "db-proxy") || strings.Contains(pod, "tandem.sh/sidecars") {
		t.Fatalf("the pod still names or has db-proxy: %s", pod)
	}
	f := newFixture(t, nil)
	code, resp := f.post(t, reviewOf(t, "batch", pod))
	if code != 200 || !resp.Allowed || resp.Patch == nil {
		t.Fatalf("status %d, %+v; want injected", code, resp)
	}
	got := patched(t, pod, resp)
	var shipper *corev1.Container
	for i := range got.Spec.InitContainers {
		if got.Spec.InitContainers[i].Name == "shipper" {
			shipper = &got.Spec.InitContainers[i]
		}
	}
	if shipper == nil || len(shipper.Command) < 2 || shipper.Command[1] != "sidecar" || !slices.Equal(shipper.Args, []string{"/ship"}) {
		t.Fatalf("shipper %+v; want it under tandem sidecar, its program in args", shipper)
	}
	// The kubelet stops it with its image's STOPSIGNAL, as a classic one.
	if i := slices.Index(shipper.Command, "--termination-signal"); i < 0 || shipper.Command[i+1] != "QUIT" {
		t.Errorf("shipper's command %q; want --termination-signal QUIT, its image's STOPSIGNAL", shipper.Command)
	}
}

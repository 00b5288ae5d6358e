package admission

import (
	"slices"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// presetPod is jobPod with no tandem annotation, its proxy the real
// cloud-sql-proxy image from a mirror, started with --quitquitquit.
var presetPod = strings.Replace(withAnnotations(jobPod, `"team":"x"`),
	`"image":"registry.example/proxy:2","args":["--port","5432"]`,
	`"image":"mirror.example/cloud-sql-connectors/cloud-sql-proxy:2.25.3","args":["--quitquitquit","p:r:i"]`, 1)

func presetFixture(t *testing.T, on bool) *fixture {
	f := newFixture(t, func(c *Config) {
		if on {
			c.Inject.Presets = presets.Builtin()
		}
	})
	f.images.configs["mirror.example/cloud-sql-connectors/cloud-sql-proxy:2.25.3"] = inject.ImageConfig{Entrypoint: []string{"/cloud-sql-proxy"}}
	return f
}

// In a labelled namespace a known sidecar needs no annotation: it is
// wrapped, asked to quit on its admin port, and needed by the main.
func TestPresetInLabelledNamespace(t *testing.T) {
	f := presetFixture(t, true)
	_, resp := f.post(t, reviewOf(t, "batch", presetPod))
	if resp == nil || !resp.Allowed || resp.Patch == nil {
		t.Fatalf("%+v; want allowed with a patch", resp)
	}
	pod := patched(t, presetPod, resp)
	proxy, main := pod.Spec.Containers[0], pod.Spec.Containers[1]
	if proxy.Name != "db-proxy" || !slices.Contains(proxy.Command, "sidecar") {
		t.Fatalf("first container %s %v; want db-proxy under tandem sidecar", proxy.Name, proxy.Command)
	}
	if i := slices.Index(proxy.Command, "--quit-url"); i < 0 || proxy.Command[i+1] != "http://127.0.0.1:9091/quitquitquit" {
		t.Errorf("proxy command %v; want --quit-url http://127.0.0.1:9091/quitquitquit", proxy.Command)
	}
	if !slices.Contains(main.Command, "--needs") {
		t.Errorf("main command %v; want --needs (the preset is essential)", main.Command)
	}
	logs := f.logLines(t)
	if last := logs[len(logs)-1]; !strings.Contains(last["message"].(string)+" "+stringOf(last["reason"]), "preset cloud-sql-proxy") {
		t.Errorf("log line %v; want it to name the preset", last)
	}
}

// --presets=false: the same pod is left alone.
func TestPresetsOffInWebhook(t *testing.T) {
	f := presetFixture(t, false)
	_, resp := f.post(t, reviewOf(t, "batch", presetPod))
	if resp == nil || !resp.Allowed || resp.Patch != nil {
		t.Fatalf("%+v; want allowed without a patch", resp)
	}
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

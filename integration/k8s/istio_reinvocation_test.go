//go:build k8s

package k8s

import (
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// Istio's injector adds istio-proxy after tandem's webhook has injected
// the pod (an export and its annotated proxy). tandem's webhook, called
// again (reinvocationPolicy: IfNeeded in examples/webhook), gives the
// export the istio-proxy preset's quit URL; the export first plays the
// endpoint's rules (a GET, and a POST from the pod's own address, both
// refused), then ends; its tandem POSTs the quit from loopback, the
// unwrapped proxy exits 0, and the Job completes.
func TestIstioProxyAddedLaterStops(t *testing.T) {
	n := admittingNamespace(t)
	if err := fakeIstioInstall(); err != nil {
		t.Fatal(err)
	}
	n.run(nil, "label", "namespace", n.name, "istio-injection=enabled")
	export := `tandem wait --for http://127.0.0.1:15020/healthz/ready --timeout 30s &&
wget -q -O- http://127.0.0.1:15020/quitquitquit || echo GET refused
wget -q -O- --post-data= http://$POD_IP:15020/quitquitquit || echo POST from the pod address refused
echo export done`
	main := ctr("export", "sh", "-c", export)
	main["env"] = []any{map[string]any{"name": "POD_IP", "valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "status.podIP"}}}}
	m := kit.FromObject(t, map[string]any{
		"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "istio-late"},
		"spec": map[string]any{"backoffLimit": 0, "template": map[string]any{
			// The proxy's signal stated: its image is in no registry to read.
			"metadata": map[string]any{"annotations": map[string]any{"tandem.sh/sidecars": "proxy", "tandem.sh/stop-signal.proxy": "TERM"}},
			"spec":     map[string]any{"restartPolicy": "Never", "containers": []any{main, ctr("proxy", "sleep", "3600")}},
		}},
	})
	pj := playJob(t, n, m)
	spec, ok := pj.pod.spec("istio-proxy")
	if !ok || len(spec.Command) != 0 {
		t.Fatalf("istio-proxy %v, command %v; want it added by the fake injector, unwrapped", ok, spec.Command)
	}
	mainSpec, _ := pj.pod.spec("export")
	if !strings.Contains(strings.Join(mainSpec.Command, " "), "--quit-url http://127.0.0.1:15020/quitquitquit --") {
		t.Errorf("export command %v; want tandem main with istio's quit URL", mainSpec.Command)
	}
	pj.exitCodes(map[string]int{"export": 0, "proxy": 0, "istio-proxy": 0})
	kit.AssertPresent(t, pj.logs,
		kit.Program("istio-proxy", "quitquitquit GET refused: not POST"),
		kit.Program("istio-proxy", "refused: not loopback"),
		kit.Program("export", "GET refused"),
		kit.Program("export", "POST from the pod address refused"))
	// tandem logs quit-called with the answer's status, after the proxy
	// has logged its handling: the call is ordered by the main's end.
	kit.AssertPresent(t, pj.logs, kit.Tandem("export", "quit-called"))
	kit.AssertOrder(t, pj.logs,
		kit.Tandem("export", "cmd-exited"),
		kit.Program("istio-proxy", "handling /quitquitquit"))
	t.Logf("istio-proxy added after tandem's injection stopped by the main's quit call; apply → Complete in %s", pj.took.Round(100*time.Millisecond))
}

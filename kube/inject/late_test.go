package inject

import (
	"slices"
	"strings"
	"testing"
)

// istioProxy is the container Istio's injector appends, as it writes it.
const istioProxy = `        - name: istio-proxy
          image: docker.io/istio/proxyv2:1.24.0
          args: ["proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local"]
          ports:
            - {containerPort: 15090, name: http-envoy-prom, protocol: TCP}
`

// A pod injected before Istio's injector added its proxy: on the
// webhook's reinvocation the main is given the proxy's quit URL, once.
func TestLateSidecarGivesMainsItsQuitURL(t *testing.T) {
	_, injected := injectYAML(t, presetJob("", `"--quitquitquit", "x"`), presetOptions())
	withIstio := strings.Replace(injected, "      volumes:\n", istioProxy+"      volumes:\n", 1)
	r, out := injectYAML(t, withIstio, presetOptions())
	if r.Status != Injected || !slices.Equal(r.Mains, []string{"export"}) || !slices.Equal(r.Sidecars, []string{"istio-proxy"}) {
		t.Fatalf("report %q; want the main given istio-proxy's quit URL", r.String())
	}
	want := "istio-proxy (preset istio-proxy; added after injection: the mains call its quit URL http://127.0.0.1:15020/quitquitquit)"
	if !strings.Contains(r.String(), want) {
		t.Errorf("report %q; want %q", r.String(), want)
	}
	main := commandOf(t, out, "export")
	if got := flagValues(main, "--quit-url"); !slices.Equal(got, []string{"http://127.0.0.1:15020/quitquitquit"}) {
		t.Errorf("main --quit-url %v; want istio's", got)
	}
	if main[len(main)-1] != "--" {
		t.Errorf("main command %v; want it to end with --", main)
	}
	if got := commandOf(t, out, "istio-proxy"); got != nil {
		t.Errorf("istio-proxy got a command %v; want it as its injector wrote it", got)
	}
	again, _ := injectYAML(t, out, presetOptions())
	if again.Status != Skipped || again.Cause != AlreadyInjected {
		t.Errorf("second reinvocation: %q; want skipped, already injected", again.String())
	}
}

// With presets off for the pod, a late sidecar is left to its injector.
func TestLateSidecarPresetsDisabled(t *testing.T) {
	_, injected := injectYAML(t, presetJob("", `"x"`), presetOptions())
	withIstio := strings.Replace(injected, "      volumes:\n", istioProxy+"      volumes:\n", 1)
	withIstio = strings.Replace(withIstio, "      annotations:\n", "      annotations:\n        tandem.sh/presets: disabled\n", 1)
	r, _ := injectYAML(t, withIstio, presetOptions())
	if r.Status != Skipped || r.Cause != AlreadyInjected {
		t.Errorf("report %q; want skipped, already injected", r.String())
	}
}

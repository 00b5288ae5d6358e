package inject

import (
	"slices"
	"strings"
	"testing"
)

// Native mode: the sidecar moves to initContainers, after tandem-install
// and before the pod's own, with restartPolicy: Always under `tandem run`;
// the main is left exactly as it was.
func TestNativeJob(t *testing.T) {
	opts := testOptions()
	opts.Mode = Native
	injectsTo(t, classicJob, opts, exportJobReport, nativeJobInjected)
}

const nativeJobInjected = exportJobHead + exportInjectedAnnotations +
	exportPodSpecHead + tandemInstallInit + dbProxyHead +
	`          restartPolicy: Always
          command:
            - /run/tandem/tandem
            - run
            - --name
            - db-proxy
            - --
` + dbProxyInjectedArgs + dbProxyPortsAndProbe + tandemVolumeMount +
	exportMigrateInit + exportContainers +
	exportMainHead + exportMainCommand + exportMainEnv + tandemVolume

// A container named as a sidecar that already is a native sidecar stays in
// initContainers, in either mode, under `tandem run`, or `tandem sidecar`
// with its ready file when a main needs it; the report says so.
func TestAlreadyNativeSidecarNamed(t *testing.T) {
	spec := "  initContainers:\n" +
		"    - name: side\n      image: app:1\n      restartPolicy: Always\n      command: [/side]\n" +
		"  containers:\n    - name: main\n      image: app:1\n      command: [/app]\n"
	for _, tt := range []struct {
		mode    Mode
		needs   bool
		command []string
	}{
		{Classic, false, []string{"/run/tandem/tandem", "run", "--name", "side", "--"}},
		{Native, false, []string{"/run/tandem/tandem", "run", "--name", "side", "--"}},
		{Classic, true, []string{"/run/tandem/tandem", "sidecar", "--name", "side", "--ready-file", "/run/tandem/side.ready", "--"}},
	} {
		src := pod(spec)
		if tt.needs {
			src = withAnnotation(spec, NeedsKey, "side")
		}
		r, out := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Mode = tt.mode }))
		want := "pod/p: injected (mains: main; sidecars: side (already a native sidecar: kept in initContainers))"
		if r.String() != want {
			t.Fatalf("%s needs=%v: report %q; want %q", tt.mode, tt.needs, r, want)
		}
		if got := listOf(t, out, "side", "command"); !slices.Equal(got, tt.command) {
			t.Errorf("%s needs=%v: side's command %q; want %q\n%s", tt.mode, tt.needs, got, tt.command, out)
		}
		if got := listOf(t, out, "side", "args"); !slices.Equal(got, []string{"/side"}) {
			t.Errorf("%s: side's args %q; want [/side]", tt.mode, got)
		}
		if !strings.Contains(out, "  initContainers:\n    - name: tandem-install\n") || !strings.Contains(out, "    - name: side\n      image: app:1\n      restartPolicy: Always\n") {
			t.Errorf("%s: want tandem-install, then side where it was, still native:\n%s", tt.mode, out)
		}
	}
}

package inject

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Native mode: the sidecar moves to initContainers, after tandem-install
// and before the pod's own, with restartPolicy: Always under `tandem
// sidecar --done-file`, so the stop that follows the main's end is a
// requested one (exit 0, not the teardown's 143); the main is under
// `tandem main`, which writes that file, with its share of the grace.
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
            - sidecar
            - --name
            - db-proxy
            - --done-file
            - /run/tandem/export.done
            - --restart
            - during-deletion
            - --grace
            - 5s
            - --await-termination
            - --
` + dbProxyInjectedArgs + dbProxyPortsAndProbe + tandemVolumeMount +
	exportMigrateInit + exportContainers + exportMainHead + `          command:
            - /run/tandem/tandem
            - main
            - --name
            - export
            - --done-file
            - /run/tandem/export.done
            - --termination-grace
            - 40s
            - --
          args: ["pg_dump", "--table=orders"] # pg_dump only
` + exportMainEnv + tandemVolumeMount + tandemVolume

// A native sidecar (an init container with restartPolicy: Always) stays
// in initContainers, in either mode, and is a sidecar by its own
// declaration: named in tandem.sh/sidecars or not. In a pod that restarts
// its mains for ever only the pod's deletion stops it (--stop-when
// deletion), which the kubelet sends it once the mains have ended on it;
// in a pod whose mains end, it stops on their done files. Either stop
// ends with 0.
func TestAlreadyNativeSidecar(t *testing.T) {
	spec := "  initContainers:\n" +
		"    - name: side\n      image: app:1\n      restartPolicy: Always\n      command: [/side]\n" +
		"  containers:\n    - name: main\n      image: app:1\n      command: [/app]\n"
	for _, tt := range []struct {
		mode                  Mode
		named, needs, endless bool
		command               string
	}{
		{Classic, true, false, true, "sidecar --name side --done-file /run/tandem/main.done --stop-when deletion --restart during-deletion --grace 5s --"},
		{Native, true, false, true, "sidecar --name side --done-file /run/tandem/main.done --stop-when deletion --restart during-deletion --grace 5s --"},
		{Native, false, false, true, "sidecar --name side --done-file /run/tandem/main.done --stop-when deletion --restart during-deletion --grace 5s --"},
		{Classic, true, true, true, "sidecar --name side --done-file /run/tandem/main.done --ready-file /run/tandem/side.ready --stop-when deletion --restart always --max-restarts 3 --grace 5s --"},
		{Classic, false, false, false, "sidecar --name side --done-file /run/tandem/main.done --restart during-deletion --grace 5s --await-termination --"},
		{Native, false, false, false, "sidecar --name side --done-file /run/tandem/main.done --restart during-deletion --grace 5s --await-termination --"},
		{Native, true, true, false, "sidecar --name side --done-file /run/tandem/main.done --ready-file /run/tandem/side.ready --restart always --max-restarts 3 --grace 5s --await-termination --"},
	} {
		name := fmt.Sprintf("%s named=%v needs=%v endless=%v", tt.mode, tt.named, tt.needs, tt.endless)
		src := spec
		if !tt.endless {
			src = "  restartPolicy: Never\n" + spec
		}
		src = pod(src)
		if !tt.named {
			src = strings.Replace(src, "    tandem.sh/sidecars: side\n", "", 1)
		}
		if tt.needs {
			src = strings.Replace(src, "  annotations:\n", "  annotations:\n    "+NeedsKey+": side\n", 1)
		}
		r, out := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Mode = tt.mode }))
		want := "pod/p: injected (mains: main; sidecars: side (already a native sidecar: kept in initContainers))"
		if r.String() != want {
			t.Fatalf("%s: report %q; want %q\n%s", name, r, want, src)
		}
		if got, want := listOf(t, out, "side", "command"), append([]string{binary}, strings.Fields(tt.command)...); !slices.Equal(got, want) {
			t.Errorf("%s: side's command %q; want %q\n%s", name, got, want, out)
		}
		if got := listOf(t, out, "side", "args"); !slices.Equal(got, []string{"/side"}) {
			t.Errorf("%s: side's args %q; want [/side]", name, got)
		}
		if !strings.Contains(out, "  initContainers:\n    - name: tandem-install\n") || !strings.Contains(out, "    - name: side\n      image: app:1\n      restartPolicy: Always\n") {
			t.Errorf("%s: want tandem-install, then side where it was, still native:\n%s", name, out)
		}
	}
}

// A native sidecar with a preStop hook of its own in a Job is left to the
// kubelet, which runs that hook once the mains have ended: tandem does not
// stop it first, and the report says its code then stands.
func TestNativeSidecarPreStopKept(t *testing.T) {
	src := pod("  restartPolicy: Never\n  containers:\n    - name: main\n      image: app:1\n      command: [/app]\n" +
		"    - name: side\n      image: app:1\n      command: [/side]\n      lifecycle:\n        preStop:\n          exec:\n            command: [/drain]\n")
	r, out := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Mode = Native }))
	want := `warning: sidecar "side" keeps its preStop hook, which the kubelet runs once the mains have ended`
	if r.Status != Injected || !strings.Contains(r.String(), want) {
		t.Errorf("report %q; want injected, with %q", r, want)
	}
	if got, want := listOf(t, out, "side", "command"), []string{binary, "run", "--name", "side", "--"}; !slices.Equal(got, want) {
		t.Errorf("side's command %q; want %q", got, want)
	}
	// In classic mode the kubelet stops no sidecar on completion: tandem does.
	r, out = injectYAML(t, src, testOptions())
	if strings.Contains(r.String(), "preStop") || !slices.Contains(listOf(t, out, "side", "command"), "--done-file") {
		t.Errorf("classic: report %q, command %q; want no warning and the done file", r, listOf(t, out, "side", "command"))
	}
}

// Native mode under restartPolicy OnFailure: the kubelet retries a failed
// main in the same pod, so a sidecar ignores a done file that reports a
// failure (--stop-when success), as in classic mode; one the kubelet
// stops (its own preStop hook) has no done file, and no --stop-when.
func TestNativeOnFailureStopWhenSuccess(t *testing.T) {
	spec := "  restartPolicy: OnFailure\n  containers:\n    - name: main\n      image: app:1\n      command: [/app]\n" +
		"    - name: side\n      image: app:1\n      command: [/side]\n"
	opts := testOptionsWith(func(o *Options) { o.Mode = Native })
	_, out := injectYAML(t, pod(spec), opts)
	want := []string{binary, "sidecar", "--name", "side", "--done-file", "/run/tandem/main.done", "--stop-when", "success",
		"--restart", "during-deletion", "--grace", "5s", "--await-termination", "--"}
	if got := listOf(t, out, "side", "command"); !slices.Equal(got, want) {
		t.Errorf("side's command %q; want %q", got, want)
	}
	// Needed, so that it runs under tandem sidecar (its ready file).
	hooked := spec + "      lifecycle: {preStop: {exec: {command: [/drain]}}}\n"
	_, out = injectYAML(t, withAnnotation(hooked, NeedsKey, "side"), opts)
	if got := listOf(t, out, "side", "command"); got[1] != "sidecar" || slices.Contains(got, "--stop-when") || slices.Contains(got, "--done-file") {
		t.Errorf("with its own preStop hook: side's command %q; want neither a done file nor --stop-when", got)
	}
}

package inject

import (
	"slices"
	"strings"
	"testing"
)

// exportNeedsAnnotation makes the export Job's main need its proxy.
const exportNeedsAnnotation = `        tandem.sh/needs: "db-proxy"
`

// needsJob is the export Job whose main cannot run without db-proxy.
var needsJob = strings.Replace(classicJob, exportJobHead, exportJobHead+exportNeedsAnnotation, 1)

// Classic mode: db-proxy writes its ready file once its startup probe
// holds (and holds its lifeline); the export needs that file.
func TestNeedsClassicJob(t *testing.T) {
	injectsTo(t, needsJob, testOptions(), exportJobReport, needsClassicJobInjected)
}

const needsClassicJobInjected = exportJobHead + exportNeedsAnnotation + exportInjectedAnnotations +
	exportPodSpecHead + tandemInstallInit + exportMigrateInit + exportContainers +
	dbProxyHead + `          command:
            - /run/tandem/tandem
            - sidecar
            - --name
            - db-proxy
            - --done-file
            - /run/tandem/export.done
            - --ready-file
            - /run/tandem/db-proxy.ready
            - --ready-when
            - http://127.0.0.1:9090/startup
            - --outlive-main
            - 45s
            - --restart
            - always
            - --max-restarts
            - "3"
            - --main-start-timeout
            - 600s
            - --grace
            - 5s
            - --
` + dbProxyInjectedArgs + dbProxyPortsAndProbe + tandemVolumeMount +
	dbProxyStartHook + exportMainHead + `          command:
            - /run/tandem/tandem
            - main
            - --name
            - export
            - --done-file
            - /run/tandem/export.done
            - --needs
            - /run/tandem/db-proxy.ready
            - --termination-grace
            - 40s
            - --
          args: ["pg_dump", "--table=orders"] # pg_dump only
` + exportMainEnv + tandemVolumeMount + tandemVolume

// Native mode: the sidecar under `tandem sidecar` for its ready file and
// lifeline, stopped by the main's done file (so its stop ends with 0), its
// budget spent by tandem's own restarts; the main under `tandem main
// --needs` with its done file and its share of the grace period, as in
// classic mode. The kubelet orders the start: no start hook, no
// --outlive-main, --restart only for the budget.
func TestNeedsNativeJob(t *testing.T) {
	opts := testOptions()
	opts.Mode = Native
	injectsTo(t, needsJob, opts, exportJobReport, needsNativeJobInjected)
}

const needsNativeJobInjected = exportJobHead + exportNeedsAnnotation + exportInjectedAnnotations +
	exportPodSpecHead + tandemInstallInit + dbProxyHead +
	`          restartPolicy: Always
          command:
            - /run/tandem/tandem
            - sidecar
            - --name
            - db-proxy
            - --done-file
            - /run/tandem/export.done
            - --ready-file
            - /run/tandem/db-proxy.ready
            - --ready-when
            - http://127.0.0.1:9090/startup
            - --restart
            - always
            - --max-restarts
            - "3"
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
            - --needs
            - /run/tandem/db-proxy.ready
            - --termination-grace
            - 40s
            - --
          args: ["pg_dump", "--table=orders"] # pg_dump only
` + exportMainEnv + tandemVolumeMount + tandemVolume

// threeContainers is a pod with a main and two sidecars, s1 with a tcp
// readiness probe, s2 with none.
const threeContainers = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    tandem.sh/sidecars: s1,s2\n    tandem.sh/needs: %s\nspec:\n  restartPolicy: Never\n  containers:\n" +
	"    - {name: m, image: app:1, command: [/m]}\n" +
	"    - {name: s1, image: app:1, command: [/s1], readinessProbe: {tcpSocket: {port: 5432}}}\n" +
	"    - {name: s2, image: app:1, command: [/s2]}\n"

// needsCommandCases give each container's command after /run/tandem/tandem.
var needsCommandCases = []struct {
	name, needs string
	mode        Mode
	m, s1, s2   string
}{
	{"only the sidecars named are needed", "s1", Classic,
		"main --name m --done-file /run/tandem/m.done --needs /run/tandem/s1.ready --termination-grace 20s --",
		"sidecar --name s1 --done-file /run/tandem/m.done --done-file /run/tandem/s2.stopped --ready-file /run/tandem/s1.ready --ready-when tcp:127.0.0.1:5432 --outlive-main 30s --restart always --max-restarts 3 --main-start-timeout 600s --grace 5s --",
		"sidecar --name s2 --done-file /run/tandem/m.done --outlive-main 30s --restart always --stopped-file /run/tandem/s2.stopped --main-start-timeout 600s --grace 5s --"},
	{"two needed, in the pod's order; no probe, ready once started", `" s2 , s1,s2 "`, Classic,
		"main --name m --done-file /run/tandem/m.done --needs /run/tandem/s1.ready --needs /run/tandem/s2.ready --termination-grace 20s --",
		"sidecar --name s1 --done-file /run/tandem/m.done --done-file /run/tandem/s2.stopped --ready-file /run/tandem/s1.ready --ready-when tcp:127.0.0.1:5432 --outlive-main 30s --restart always --max-restarts 3 --main-start-timeout 600s --grace 5s --",
		"sidecar --name s2 --done-file /run/tandem/m.done --ready-file /run/tandem/s2.ready --outlive-main 30s --restart always --max-restarts 3 --stopped-file /run/tandem/s2.stopped --main-start-timeout 600s --grace 5s --"},
	{"an empty annotation needs nothing", `""`, Classic,
		"main --name m --done-file /run/tandem/m.done --termination-grace 20s --",
		"sidecar --name s1 --done-file /run/tandem/m.done --done-file /run/tandem/s2.stopped --outlive-main 30s --restart always --main-start-timeout 600s --grace 5s --",
		"sidecar --name s2 --done-file /run/tandem/m.done --outlive-main 30s --restart always --stopped-file /run/tandem/s2.stopped --main-start-timeout 600s --grace 5s --"},
	{"native: each sidecar stops on the main's done file, the last first; the needed one has a budget", "s2", Native,
		"main --name m --done-file /run/tandem/m.done --needs /run/tandem/s2.ready --termination-grace 20s --",
		"sidecar --name s1 --done-file /run/tandem/m.done --done-file /run/tandem/s2.stopped --restart during-deletion --grace 5s --await-termination --",
		"sidecar --name s2 --done-file /run/tandem/m.done --ready-file /run/tandem/s2.ready --restart always --max-restarts 3 --stopped-file /run/tandem/s2.stopped --grace 5s --await-termination --"},
}

func TestNeedsCommandLines(t *testing.T) {
	for _, tt := range needsCommandCases {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			opts.Mode = tt.mode
			r, out := injectYAML(t, strings.Replace(threeContainers, "%s", tt.needs, 1), opts)
			if r.Status != Injected || len(r.Warnings) > 0 {
				t.Fatalf("%s", r)
			}
			for name, want := range map[string]string{"m": tt.m, "s1": tt.s1, "s2": tt.s2} {
				want := append([]string{binary}, strings.Fields(want)...)
				if got := listOf(t, out, name, "command"); !slices.Equal(got, want) {
					t.Errorf("%s: command %q; want %q", name, got, want)
				}
			}
		})
	}
}

// A needed sidecar whose probe tandem cannot check is ready as soon as it
// starts, and the report says so.
func TestNeedsProbeWithoutCondition(t *testing.T) {
	src := pod(sprintf(twoContainers, "app:1") + "      readinessProbe:\n        grpc:\n          port: 9000\n")
	src = strings.Replace(src, "    tandem.sh/sidecars: side\n", "    tandem.sh/sidecars: side\n    tandem.sh/needs: side\n", 1)
	r, out := injectYAML(t, src, testOptions())
	if r.Status != Injected {
		t.Fatalf("%s", r)
	}
	want := `warning: sidecar "side" is ready for the mains that need it as soon as it starts: probe: expected httpGet, tcpSocket or exec`
	if !strings.Contains(r.String(), want) {
		t.Errorf("report %q lacks %q", r, want)
	}
	got := listOf(t, out, "side", "command")
	if !slices.Contains(got, "--ready-file") || slices.Contains(got, "--ready-when") {
		t.Errorf("sidecar command %q; want a ready file and no --ready-when", got)
	}
}

// A name in tandem.sh/needs that is not a sidecar of the pod: the resource
// is not injected, the error names the annotation and the value.
func TestNeedsNotASidecar(t *testing.T) {
	tests := []struct {
		name, annotations, want string
	}{
		{"a container the pod does not have", "    tandem.sh/sidecars: side\n    tandem.sh/needs: side,db-prxy\n",
			`pod/p: not injected: tandem.sh/needs: "db-prxy" is not a sidecar of this pod (sidecars: side): name it in tandem.sh/sidecars too, or fix the annotation`},
		{"a main", "    tandem.sh/sidecars: side\n    tandem.sh/needs: main\n",
			`tandem.sh/needs: "main" is not a sidecar of this pod (sidecars: side)`},
		{"no sidecars at all: an error, not a skip", "    tandem.sh/needs: side\n",
			`tandem.sh/needs: "side" is not a sidecar of this pod (sidecars: none)`},
	}
	for _, mode := range []Mode{Classic, Native} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				src := strings.Replace(pod(sprintf(twoContainers, "app:1")), "    tandem.sh/sidecars: side\n", tt.annotations, 1)
				r, out := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Mode = mode }))
				if r.Status != Failed || !strings.Contains(r.String(), tt.want) {
					t.Errorf("report %q; want not injected, with %q", r, tt.want)
				}
				unchanged(t, src, out)
			})
		}
	}
}

// Injecting what was injected with tandem.sh/needs changes nothing.
func TestNeedsIdempotent(t *testing.T) {
	for _, mode := range []Mode{Classic, Native} {
		opts := testOptionsWith(func(o *Options) { o.Mode = mode })
		_, once := injectYAML(t, needsJob, opts)
		r, twice := injectYAML(t, once, opts)
		if r.Status != Skipped || r.Cause != AlreadyInjected {
			t.Errorf("%s: second injection %s; want skipped, already injected", mode, r)
		}
		unchanged(t, once, twice)
	}
}

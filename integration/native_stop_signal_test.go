package integration

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"github.com/tandem-sh/tandem/kube/inject"
)

// A native sidecar whose stop signal its pod states (tandem.sh/stop-signal:
// QUIT), played with the command lines `tandemctl inject` writes for it:
// on the pod's deletion the main marks its termination and ends, then the
// kubelet sends the sidecar SIGQUIT. Its tandem takes that for the pod's
// deletion after the mains: one requested stop, exit 0 (though the
// program ends with 3), its program never started again. With a restart
// budget and without, moved to initContainers by --mode native or
// declared native by the pod itself (either mode).
func TestNativeSidecarStatedStopSignal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		mode   inject.Mode
		spec   string
		budget bool
	}{
		{"native mode, budget", inject.Native, namedShipper, true},
		{"native mode, no budget", inject.Native, namedShipper, false},
		{"declared native, classic mode", inject.Classic, declaredShipper, true},
		{"declared native, native mode", inject.Native, declaredShipper, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			mainArgv, shipperArgv := writtenCommands(t, tt.mode, tt.spec, tt.budget, dir)
			if !slices.Contains(shipperArgv, "--termination-signal") {
				t.Fatalf("shipper's written command %q: no --termination-signal", shipperArgv)
			}
			mainOut, shipperOut := inDir(dir, "main-signals"), inDir(dir, "shipper-signals")
			// The kubelet starts a native sidecar before the mains.
			shipper := startTandem(t, procOptions{}, cmdArgs(shipperArgv, helper("sc-stop-on-quit-or-term", shipperOut, "3"))...)
			waitReadyPID(t, shipperOut)
			main := startTandem(t, procOptions{}, cmdArgs(mainArgv, helper("record-signals", mainOut, "15", "143"))...)
			waitReadyPID(t, mainOut)

			// The pod's deletion: SIGTERM to the main; once it has ended,
			// the sidecar's stop signal.
			main.signal(syscall.SIGTERM)
			main.wait()
			shipper.signal(syscall.SIGQUIT)
			shipper.scWantExit(0, "stopped")
			shipper.scWantOrder("cmd-started", "done-seen", "stop-sent", "cmd-exited", "exiting")
			if n := len(shipper.scLinesWith("cmd-started")); n != 1 || shipper.hasEvent("restarting") {
				t.Fatalf("the shipper's program started %d times; want once, never restarted on the pod's deletion", n)
			}
		})
	}
}

// The pod: a Deployment's (restartPolicy Always), its shipper named a
// sidecar, or declared native.
const (
	namedShipper = `  containers:
    - name: main
      image: app:1
      command: [/app]
    - name: shipper
      image: shipper:1
      command: [/shipper]
`
	declaredShipper = `  initContainers:
    - name: shipper
      image: shipper:1
      restartPolicy: Always
      command: [/shipper]
  containers:
    - name: main
      image: app:1
      command: [/app]
`
)

// writtenCommands injects a pod of spec (its shipper's stop signal stated,
// with a restart budget or not) in mode, and returns the tandem flags
// written for its main and its shipper, with the shared volume's paths
// under dir.
func writtenCommands(t *testing.T, mode inject.Mode, spec string, budget bool, dir string) (mainArgv, shipperArgv []string) {
	t.Helper()
	annotations := "    tandem.sh/sidecars: shipper\n    " + inject.StopSignalKey + "shipper: QUIT\n"
	if budget {
		annotations += "    " + inject.MaxRestartsKey + "shipper: \"3\"\n"
	}
	src := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n" + annotations + "spec:\n" + spec
	commands := injectedCommands(t, src, mode)
	return local(t, commands["main"], dir), local(t, commands["shipper"], dir)
}

// injectedCommands are the commands inject's library writes for the pod
// src in mode, by container.
func injectedCommands(t *testing.T, src string, mode inject.Mode) map[string][]string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	r := inject.Resource(context.Background(), doc.Content[0], inject.Options{Mode: mode, Image: "tandem:test", Version: "test"})
	if r.Status != inject.Injected {
		t.Fatalf("inject: %s", r)
	}
	commands := map[string][]string{}
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range yamlnode.Path(doc.Content[0], "spec", list).Content {
			commands[yamlnode.ScalarAt(c, "name")], _ = yamlnode.StringsOf(yamlnode.Lookup(c, "command"))
		}
	}
	return commands
}

// local is a written tandem command line's flags (without the binary and
// the closing "--"), the shared volume's paths moved under dir.
func local(t *testing.T, argv []string, dir string) []string {
	t.Helper()
	if len(argv) < 3 || argv[0] != inject.MountPath+"/tandem" || argv[len(argv)-1] != "--" {
		t.Fatalf("written command %q: want /run/tandem/tandem … --", argv)
	}
	var flags []string
	for _, a := range argv[1 : len(argv)-1] {
		flags = append(flags, strings.Replace(a, inject.MountPath+"/", dir+"/", 1))
	}
	return flags
}

// sc-stop-on-quit-or-term OUT CODE: write "ready PID" to OUT, record the
// signals it gets, and exit CODE on SIGQUIT or SIGTERM: a program whose
// image's STOPSIGNAL is QUIT and that ends on either.
func scHelperStopOnQuitOrTerm(args []string) int {
	ch := make(chan os.Signal, 16)
	signal.Notify(ch, syscall.SIGQUIT, syscall.SIGTERM)
	appendLine(args[0], fmt.Sprintf("ready %d", os.Getpid()))
	sig := (<-ch).(syscall.Signal)
	appendLine(args[0], fmt.Sprint(int(sig)))
	code, err := strconv.Atoi(args[1])
	if err != nil {
		return 125
	}
	return code
}

package inject

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A native sidecar is stopped by the kubelet with the signal its pod or
// image states, as a classic container is: native mode writes that
// signal as --termination-signal as classic mode does, for the sidecars
// it moves to initContainers and for those the pod declares native, so
// that tandem takes the signal for the pod's deletion (a requested stop,
// exit 0) rather than a reload to forward.
func TestNativeSidecarStopSignal(t *testing.T) {
	declared := "  initContainers:\n    - name: side\n      image: %s\n      restartPolicy: Always\n      command: [/side]\n%s" +
		"  containers:\n    - name: main\n      image: app:1\n      command: [/app]\n"
	moved := "  containers:\n    - name: main\n      image: app:1\n      command: [/app]\n" +
		"    - name: side\n      image: %s\n      command: [/side]\n%s"
	for _, tt := range []struct {
		name, image, fields, annotation string
		want                            string // the --termination-signal written, "" for none
	}{
		{"annotated, with a budget", "app:1", "", "QUIT", "QUIT"},
		{"the image's STOPSIGNAL", "nginx:1", "", "", "QUIT"},
		{"lifecycle.stopSignal", "app:1", "      lifecycle:\n        stopSignal: SIGINT\n", "", "INT"},
		{"TERM stated over the image's", "nginx:1", "", "TERM", ""},
		{"no STOPSIGNAL", "app:1", "", "", ""},
	} {
		for _, shape := range []struct{ name, spec string }{{"named", moved}, {"declared native", declared}} {
			for _, mode := range []Mode{Classic, Native} {
				t.Run(fmt.Sprintf("%s/%s/%s", tt.name, shape.name, mode), func(t *testing.T) {
					src := pod(fmt.Sprintf(shape.spec, tt.image, tt.fields))
					src = strings.Replace(src, "  annotations:\n", "  annotations:\n    "+MaxRestartsKey+"side: \"3\"\n", 1)
					if tt.annotation != "" {
						src = strings.Replace(src, "  annotations:\n", "  annotations:\n    "+StopSignalKey+"side: "+tt.annotation+"\n", 1)
					}
					r, out := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Mode = mode }))
					if r.Status != Injected {
						t.Fatalf("%s", r)
					}
					got := listOf(t, out, "side", "command")
					if got[1] != "sidecar" {
						t.Fatalf("side's command %q; want tandem sidecar", got)
					}
					i := slices.Index(got, "--termination-signal")
					switch {
					case tt.want == "" && i >= 0:
						t.Errorf("side's command %q; want no --termination-signal", got)
					case tt.want != "" && (i < 0 || got[i+1] != tt.want):
						t.Errorf("side's command %q; want --termination-signal %s", got, tt.want)
					}
				})
			}
		}
	}
}

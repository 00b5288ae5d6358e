package inject

import (
	"slices"
	"strings"
	"testing"
)

// shipperPod is shipperJob with the pod's grace period (period: "" for
// none) and annotations (key, value, …).
func shipperPod(image, period string, annotations ...string) string {
	src := shipperJob(image, "")
	if period != "" {
		src = strings.Replace(src, "  restartPolicy: Never\n", "  restartPolicy: Never\n  terminationGracePeriodSeconds: "+period+"\n", 1)
	}
	if len(annotations) > 0 {
		block := "  annotations:\n"
		for i := 0; i+1 < len(annotations); i += 2 {
			block += "    " + annotations[i] + ": " + annotations[i+1] + "\n"
		}
		src = strings.Replace(src, "  name: export\n", "  name: export\n"+block, 1)
	}
	return src
}

// graceOf is the main's --termination-grace and sidecar name's --grace
// in out, "" where none is written.
func graceOf(t *testing.T, out, sidecar string) (main, grace string) {
	t.Helper()
	first := func(values []string) string {
		if len(values) == 0 {
			return ""
		}
		return values[0]
	}
	return first(flagValues(listOf(t, out, "export", "command"), "--termination-grace")),
		first(flagValues(listOf(t, out, sidecar, "command"), "--grace"))
}

// A shipper's preset grace is its share of the pod's grace period when
// the pod states none: the main's --termination-grace leaves it that, and
// its --grace is that (none written for tandem's default 10 s). The pod's
// annotations win, its own over the pod-wide one. A share above half the
// period is cut to half, and the report says so.
func TestPresetGrace(t *testing.T) {
	for _, tt := range []struct {
		name, image, period string
		annotations         []string
		main, grace         string
		warning             string
	}{
		{"fluent-bit's 10s", "fluent/fluent-bit:5.1.1", "", nil, "20s", "", ""},
		{"Vector's 65s", "timberio/vector:0.57.0-debian", "200", nil, "135s", "65s", ""},
		{"the pod's annotation wins", "fluent/fluent-bit:5.1.1", "", []string{SidecarGraceKey, "3s"}, "27s", "3s", ""},
		{"the sidecar's own wins", "fluent/fluent-bit:5.1.1", "60", []string{SidecarGraceKey, "3s", SidecarGraceKey + ".logs", "20s"}, "40s", "20s", ""},
		{"Vector in a 30s period", "timberio/vector:0.57.0-debian", "", nil, "15s", "15s",
			`preset vector's grace 65s is more than half the pod's grace period (30s): 15s kept for sidecar "logs"`},
		{"its own, too long", "fluent/fluent-bit:5.1.1", "", []string{SidecarGraceKey + ".logs", "1m"}, "15s", "15s",
			`tandem.sh/sidecar-grace.logs 1m is more than half the pod's grace period (30s): 15s kept for sidecar "logs"`},
		{"no grace period", "fluent/fluent-bit:5.1.1", "0", nil, "", "", ""},
	} {
		r, out := injectYAML(t, shipperPod(tt.image, tt.period, tt.annotations...), offline())
		if r.Status != Injected {
			t.Errorf("%s: report %q; want injected", tt.name, r)
			continue
		}
		if main, grace := graceOf(t, out, "logs"); main != tt.main || grace != tt.grace {
			t.Errorf("%s: --termination-grace %q, --grace %q; want %q, %q", tt.name, main, grace, tt.main, tt.grace)
		}
		if (tt.warning == "") != (len(r.Warnings) == 0) || tt.warning != "" && !slices.Contains(r.Warnings, tt.warning) {
			t.Errorf("%s: warnings %q; want %q", tt.name, r.Warnings, tt.warning)
		}
	}
}

// Each sidecar has its share; the sidecars stop one after another, so the
// mains leave all of them (10 s for fluent-bit, 5 s for the proxy), and
// each sidecar's --grace is its own.
func TestGraceSharesOfTwoSidecars(t *testing.T) {
	src := strings.Replace(shipperPod("fluent/fluent-bit:5.1.1", "", SidecarsKey, "proxy", StopSignalKey+"proxy", "TERM"), "  containers:\n",
		"  containers:\n    - name: proxy\n      image: proxy:2\n      command: [/cloud-sql-proxy]\n", 1)
	r, out := injectYAML(t, src, offline())
	if r.Status != Injected || len(r.Warnings) != 0 {
		t.Fatalf("report %q; want injected without a warning", r)
	}
	main, logs := graceOf(t, out, "logs")
	_, proxy := graceOf(t, out, "proxy")
	if main != "15s" || logs != "" || proxy != "5s" {
		t.Errorf("--termination-grace %q, logs --grace %q, proxy --grace %q; want 15s, none (10s), 5s", main, logs, proxy)
	}
}

// A per-sidecar annotation that is not a duration, or names a container
// that is not a sidecar, is refused, naming it.
func TestSidecarGraceAnnotationRefused(t *testing.T) {
	for _, tt := range []struct{ key, value, want string }{
		{SidecarGraceKey + ".logs", "5", `tandem.sh/sidecar-grace.logs: "5": expected a duration such as 5s or 1m`},
		{SidecarGraceKey + ".logs", "-1s", `tandem.sh/sidecar-grace.logs: "-1s": expected a duration such as 5s or 1m`},
		{SidecarGraceKey + ".export", "5s", `tandem.sh/sidecar-grace.export names container "export", which is not a sidecar of this pod (sidecars: logs)`},
		{SidecarGraceKey + ".nope", "5s", `tandem.sh/sidecar-grace.nope names container "nope", which is not a sidecar of this pod (sidecars: logs)`},
	} {
		r, _ := injectYAML(t, shipperPod("fluent/fluent-bit:5.1.1", "", tt.key, tt.value), offline())
		if r.Status != Failed || !strings.Contains(r.String(), tt.want) {
			t.Errorf("%s: %s: report %q; want refused with %q", tt.key, tt.value, r, tt.want)
		}
	}
}

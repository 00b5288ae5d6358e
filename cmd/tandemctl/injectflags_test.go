package main

import (
	"strconv"
	"strings"
	"testing"
)

// inject's flags read the same in both commands' help: name, usage text,
// default and variable.
func TestInjectFlagsHelpAgrees(t *testing.T) {
	injectHelp := helpLines(t, "inject")
	webhookHelp := helpLines(t, "webhook")
	for _, f := range injectFlags() {
		name := f.Names()[0]
		inInject, inWebhook := injectHelp[name], webhookHelp[name]
		if inInject == "" || inInject != inWebhook {
			t.Errorf("--%s:\ninject  %q\nwebhook %q\nwant the same, not empty", name, inInject, inWebhook)
		}
	}
}

// helpLines is a command's --help by flag name, white space folded (the
// column the usage starts in depends on the command's longest flag).
func helpLines(t *testing.T, command string) map[string]string {
	t.Helper()
	out, stderr, code := run(t, "", command, "--help")
	if code != 0 {
		t.Fatalf("%s --help: exit %d: %s", command, code, stderr)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		fields := strings.Fields(l)
		if len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
			lines[strings.TrimPrefix(fields[0], "--")] = strings.Join(fields, " ")
		}
	}
	return lines
}

// --image must be an image reference: anything else would be written
// into every pod, for the kubelet to refuse. Nothing is written.
func TestInjectBadImage(t *testing.T) {
	for _, image := range []string{":v1", "ghcr.io/tandem sh/tandem:v1", "Tandem:v1"} {
		out, stderr, code := run(t, plainJob, "inject", "--resolve", "none", "--image", image)
		if code != exitUsage || out != "" || !strings.Contains(stderr, "--image "+strconv.Quote(image)+": expected an image reference") {
			t.Errorf("--image %q: exit %d, stdout %q, stderr %q; want exit 2, nothing written, an error naming the value", image, code, out, stderr)
		}
	}
}

package main

import (
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

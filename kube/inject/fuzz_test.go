package inject

import (
	"bytes"
	"context"
	"testing"

	"github.com/tandem-sh/tandem/kube/manifest"
)

// aliasedJob's sidecar aliases an anchor of the main it moves in front of.
const aliasedJob = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n" +
	"    metadata: {annotations: {tandem.sh/sidecars: side}}\n    spec:\n      restartPolicy: Never\n      containers:\n" +
	"        - {name: main, image: app:1, command: [/m], resources: &res {limits: {cpu: \"1\"}}}\n" +
	"        - {name: side, image: app:1, command: [/s], resources: *res}\n"

// Whatever the input: it parses or is refused; a stream written without
// changes is the input byte for byte; injection never panics, and what it
// writes parses again and is left as it is by a second injection.
func FuzzInject(f *testing.F) {
	const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}   # kept\ndata:\n  a: \"1\"\n"
	for _, seed := range []string{classicJob, configMap, configMap + "---\n" + classicJob, "{\"kind\": \"Pod\"}", "kind: List\nitems: [{kind: Pod}]\n", "---\n---\n# c\n", aliasedJob} {
		f.Add([]byte(seed))
	}
	opts := testOptions()
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := manifest.Parse("fuzz", data)
		if err != nil {
			return
		}
		var same bytes.Buffer
		if err := file.Write(&same); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(same.Bytes(), data) {
			t.Fatalf("unchanged stream written as %q; want %q", same.Bytes(), data)
		}
		Files(context.Background(), []*manifest.File{file}, opts, func(Report) {})
		var out bytes.Buffer
		if err := file.Write(&out); err != nil {
			return // a node with no JSON form (a YAML-only tag in a JSON file)
		}
		if file.Format == manifest.YAML {
			wantStrictOutput(t, data, out.Bytes())
		}
		again, err := manifest.Parse("fuzz", out.Bytes())
		if err != nil {
			t.Fatalf("injected output does not parse: %v\n%s", err, out.Bytes())
		}
		Files(context.Background(), []*manifest.File{again}, opts, func(Report) {})
		var twice bytes.Buffer
		if err := again.Write(&twice); err != nil || !bytes.Equal(twice.Bytes(), out.Bytes()) {
			t.Fatalf("a second injection changed the output (%v):\n%s\nthen:\n%s", err, out.Bytes(), twice.Bytes())
		}
	})
}

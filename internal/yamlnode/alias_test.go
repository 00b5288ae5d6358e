package yamlnode

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// After a move that puts an alias before its anchor, the alias is
// expanded where it now stands, nested aliases included; aliases that
// still follow their anchors are kept, and the result parses.
func TestExpandForwardAliases(t *testing.T) {
	src := "containers:\n" +
		"  - name: main\n    resources: &res\n      limits: &lim {cpu: \"1\"}\n" +
		"  - name: side\n    resources: *res\n    extra: *lim\n"
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	containers := Lookup(doc.Content[0], "containers")
	containers.Content[0], containers.Content[1] = containers.Content[1], containers.Content[0]
	if _, err := reparse(t, &doc); err == nil || !strings.Contains(err.Error(), "unknown anchor") {
		t.Fatalf("the swap alone should leave an alias before its anchor; parse error %v", err)
	}
	ExpandForwardAliases(&doc)
	out, err := reparse(t, &doc)
	if err != nil {
		t.Fatalf("after expansion: %v\n%s", err, out)
	}
	want := "containers:\n" +
		"    - name: side\n      resources:\n        limits: {cpu: \"1\"}\n      extra: {cpu: \"1\"}\n" +
		"    - name: main\n      resources: &res\n        limits: &lim {cpu: \"1\"}\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}

	kept := "a: &x 1\nb: *x\n"
	if err := yaml.Unmarshal([]byte(kept), &doc); err != nil {
		t.Fatal(err)
	}
	ExpandForwardAliases(&doc)
	if out, _ := reparse(t, &doc); out != kept {
		t.Errorf("an alias after its anchor changed: %q; want %q", out, kept)
	}
}

func reparse(t *testing.T, doc *yaml.Node) (string, error) {
	t.Helper()
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var again yaml.Node
	return string(out), yaml.Unmarshal(out, &again)
}

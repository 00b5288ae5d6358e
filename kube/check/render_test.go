package check

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestRenderJSON(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, Report{Pods: 3}, JSON); err != nil || b.String() != "[]\n" {
		t.Errorf("no findings: %q, %v; want []", b.String(), err)
	}
	b.Reset()
	r := Report{Findings: []Finding{{Check: checkNamespaces, Severity: Warning, Name: "tandem.sh/inject=enabled", Message: "m", Fix: "f"}}}
	if err := Render(&b, r, JSON); err != nil {
		t.Fatal(err)
	}
	var got []map[string]string
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(got[0]))
	for k := range got[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(got) != 1 || !slices.Equal(keys, []string{"check", "fix", "message", "name", "namespace", "severity"}) || got[0]["severity"] != "warning" {
		t.Errorf("%s: want one finding with check, severity, namespace, name, message and fix", b.String())
	}
}

func TestRenderText(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, Report{Pods: 3, Webhooks: 1}, Text); err != nil || b.String() != "no problems found (checked 3 pods and 1 webhook of tandem)\n" {
		t.Errorf("no findings: %q, %v", b.String(), err)
	}
	b.Reset()
	r := Report{Pods: 1, Findings: []Finding{
		{Check: checkHeldPod, Severity: Error, Namespace: "jobs", Name: "p", Message: "held", Fix: "inject"},
		{Check: checkNamespaces, Severity: Warning, Name: "tandem.sh/inject=enabled", Message: "none labelled", Fix: "label"},
	}}
	want := "ERROR held-pod jobs/p\n  held\n  fix: inject\n\n" +
		"WARNING webhook-namespaces tandem.sh/inject=enabled\n  none labelled\n  fix: label\n\n" +
		"1 error, 1 warning (checked 1 pod and 0 webhooks of tandem)\n"
	if err := Render(&b, r, Text); err != nil || b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if _, err := ParseFormat("yaml"); err == nil || err.Error() != `"yaml": expected text or json` {
		t.Errorf("ParseFormat(yaml): %v", err)
	}
}

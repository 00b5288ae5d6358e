package kit

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// The command lines the tests compare must be the strings Kubernetes
// reads (YAML 1.1): an item that it would read otherwise is refused.
func TestStringItem(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"--done-file=/run/tandem/done", "--done-file=/run/tandem/done", true},
		{"--wait-for=tcp:127.0.0.1:5432", "--wait-for=tcp:127.0.0.1:5432", true},
		{"--outlive-main=30s", "--outlive-main=30s", true},
		{"--", "--", true},
		{"my-project:europe-west1:orders", "my-project:europe-west1:orders", true},
		{"--command=VACUUM (ANALYZE) orders", "--command=VACUUM (ANALYZE) orders", true},
		{`"daemon off;"`, "daemon off;", true},
		{`"*"`, "*", true},
		{`'it''s'`, "it's", true},
		{`"1"`, "1", true},
		{"a #comment", "a", true},
		{"1", "", false},
		{"-1.5", "", false},
		{"0x1f", "", false},
		{"1:30", "", false},
		{"yes", "", false},
		{"Off", "", false},
		{"null", "", false},
		{"~", "", false},
		{"*", "", false},
		{"-", "", false},
		{"[a]", "", false},
		{"a: b", "", false},
	} {
		var doc yaml.Node
		var got string
		err := yaml.Unmarshal([]byte("- "+tc.in+"\n"), &doc)
		if err == nil {
			got, err = stringItem(doc.Content[0].Content[0])
		}
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("item %q = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

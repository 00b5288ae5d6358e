//go:build e2e

package e2e

import "testing"

// The command lines the tests compare are read without a YAML library: an
// item that YAML would not read as this very string must be refused.
func TestYAMLScalar(t *testing.T) {
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
		{"a #comment", "", false},
	} {
		got, err := yamlScalar(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("yamlScalar(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

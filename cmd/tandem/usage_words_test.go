package main

import (
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/exitcode"
)

// TestFlagParserWords: what Go's flag package says of a command line
// (`flag provided but not defined: -bogus`) reaches the user as tandem says
// it: two dashes, and what is accepted or meant.
func TestFlagParserWords(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bogus", "--", "x"}, "unknown flag --bogus: see `tandem run --help`"},
		{[]string{"run", "--graec", "5s", "--", "x"}, "unknown flag --graec: did you mean --grace?"},
		{[]string{"--graec", "5s", "run", "--", "x"}, "unknown flag --graec: did you mean --grace?"},
		{[]string{"sidecar", "--done-fille", "/d", "--", "x"}, "unknown flag --done-fille: did you mean --done-file?"},
		{[]string{"run", "--grace"}, "--grace needs a value: expected a duration such as 10s or 500ms"},
		{[]string{"done", "--done-file"}, "--done-file needs a value: expected a file path such as /run/tandem/done"},
		{[]string{"run", "---x", "--", "x"}, `bad flag syntax "---x": expected --FLAG or --FLAG=VALUE`},
		{[]string{"version", "--bogus"}, "unknown flag --bogus: see `tandem version --help`"},
		{[]string{"--version"}, "unknown flag --version: did you mean the command `tandem version`?"},
		{[]string{"done", "--file", "/a", "--done-file", "/b"}, "--done-file and --file are two names of one flag: expected only one of them"},
	} {
		_, _, err := runApp(t, nil, tt.args...)
		if exitcode.Of(err) != exitcode.Usage || err.Error() != tt.want {
			t.Errorf("tandem %q: %v; want exit 2 saying %q", tt.args, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), "provided but not defined") || strings.Contains(err.Error(), "Cannot use")) {
			t.Errorf("Go's words in %q", err)
		}
	}
}

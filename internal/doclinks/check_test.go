package doclinks

import (
	"slices"
	"testing"
)

func TestCheckFindsEveryBrokenLinkAndNothingElse(t *testing.T) {
	broken, err := Check("testdata/site", []string{"README.md", "docs/page.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Broken{
		{File: "README.md", Line: 9, Dest: "docs/missing.md", Reason: `no such file or directory "docs/missing.md"`},
		{File: "README.md", Line: 9, Dest: "docs/page.md#no-such-section", Reason: "no heading of docs/page.md has the anchor #no-such-section"},
		{File: "README.md", Line: 10, Dest: "#Exit-codes", Reason: "no heading of README.md has the anchor #Exit-codes"},
		{File: "README.md", Line: 10, Dest: "examples/#top", Reason: "anchor #top on a directory"},
		{File: "README.md", Line: 11, Dest: "examples/job.yaml#spec", Reason: "anchor #spec in examples/job.yaml, which is not Markdown: only #L12 or #L12-L20"},
		{File: "README.md", Line: 11, Dest: "../../../etc/passwd", Reason: "leaves the repository"},
		{File: "README.md", Line: 12, Dest: "docs/gone.md", Reason: `no such file or directory "docs/gone.md"`},
	}
	if !slices.Equal(broken, want) {
		t.Errorf("broken links:\n got %v\nwant %v", broken, want)
	}
}

func TestCheckFailsOnAFileItCannotRead(t *testing.T) {
	if _, err := Check("testdata/site", []string{"docs/absent.md"}); err == nil {
		t.Fatal("Check of a missing file: no error")
	}
}

func TestSlugFollowsGitHub(t *testing.T) {
	for text, want := range map[string]string{
		"Exit codes":                                      "exit-codes",
		"tandem run [flags] -- CMD...":                    "tandem-run-flags----cmd",
		"How fast, how small":                             "how-fast-how-small",
		"The lifeline: a main killed outright":            "the-lifeline-a-main-killed-outright",
		"tandemctl check":                                 "tandemctl-check",
		"Without a shared volume: a shared PID namespace": "without-a-shared-volume-a-shared-pid-namespace",
		"--stop-when any|success":                         "--stop-when-anysuccess",
		"snake_case and Ünïcode":                          "snake_case-and-ünïcode",
	} {
		if got := Slug(text); got != want {
			t.Errorf("Slug(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestDuplicateHeadingsAreNumbered(t *testing.T) {
	p := parsePage([]byte("# Usage\n\n## Usage\n\n### Usage\n"))
	for _, anchor := range []string{"usage", "usage-1", "usage-2"} {
		if !p.anchors[anchor] {
			t.Errorf("no anchor %q in %v", anchor, p.anchors)
		}
	}
}
